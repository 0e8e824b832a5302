"""A program's graph in Python: sw.Program, add_node, group, and the handles
that add_node returns (Launchpad's model).

    p = sw.Program("impala")
    replay = p.add_node(sw.ReplayNode(tables={...}), label="replay")
    learner = p.add_node(sw.CourierNode(Learner, replay=replay), label="learner", gpus=1)
    with p.group("actor", replicas="2:8"):
        p.add_node(sw.PyNode(actor, learner=learner, replay=replay))

A label is a slipway node; a group is one node with replicas. In a group,
either one add_node and `replicas=` (every replica runs the same node), or
one add_node per replica (replica i runs the i-th; each add_node returns a
handle to its replica). Handles passed in a node's arguments become clients
in the task that runs it (dereference()). Every node remembers the Python
file and line of its add_node, for errors and for the topology's comments.
"""

import contextlib
import inspect
import os
import re
import sys
import types
from typing import TYPE_CHECKING, Any, Iterator, Optional, cast

from . import nodes as _nodes

if TYPE_CHECKING:
    from . import courier

# Where a node was defined: (the Python file, the line).
Site = tuple[str, int]

__all__ = ["Program", "ProgramError", "Handle"]

# add_node/group keywords that become [node.NAME] keys as they are.
NODE_KEYS = ("replicas", "cpus", "gpus", "mem", "framework", "env", "max_retries", "daemon", "nodes",
             "partition", "constraint", "account", "qos", "time", "colocate", "wrapper", "workdir",
             "ucx", "elastic")
_LABEL = re.compile(r"^[A-Za-z][A-Za-z0-9_.-]{0,63}$")


class ProgramError(Exception):
    """A mistake in a program's definition, reported at the Python line."""


def caller_site(depth: int = 2) -> Site:
    """(file, line) of the code that called the caller, outside this package."""
    frame: Optional[types.FrameType] = sys._getframe(depth)
    package = os.path.dirname(os.path.abspath(__file__))
    while frame is not None and os.path.dirname(os.path.abspath(frame.f_code.co_filename)) == package:
        frame = frame.f_back
    if frame is None:
        return ("<unknown>", 0)
    return (os.path.abspath(frame.f_code.co_filename), frame.f_lineno)


def _error(site: Site, message: str) -> ProgramError:
    return ProgramError("%s:%d: %s" % (site[0], site[1], message))


class Handle:
    """What add_node returns: a reference to a node (or one replica of it) that
    becomes a client in the task it is passed to."""

    def __init__(self, spec: "NodeSpec", replica: Optional[int] = None) -> None:
        self._spec, self._replica = spec, replica

    @property
    def label(self) -> str:
        return self._spec.label

    def __repr__(self) -> str:
        which = "" if self._replica is None else " replica %d" % self._replica
        return "<slipway handle to node %r%s>" % (self._spec.label, which)

    def dereference(self, endpoint: "Optional[courier.Endpoint]" = None) -> Any:
        """The client this handle becomes in a task (see slipway.handles)."""
        from . import handles
        return handles.dereference(self._spec, self._replica, endpoint)

    def __reduce__(self) -> tuple[Any, tuple[Any, Optional[int]]]:
        # Shipped in a node's payload (slipway.shipping): what dereference()
        # needs of the node, not the node's own code and arguments.
        spec = self._spec
        node = spec.members[0]
        summary = (spec.label, spec.site, spec.in_group, spec.keys.get("replicas"), len(spec.members),
                   type(node), list(getattr(node, "ports", ())))
        return (_shipped_handle, (summary, self._replica))


def _shipped_handle(summary: tuple[Any, ...], replica: Optional[int]) -> Handle:
    """A handle rebuilt in a task from Handle.__reduce__'s summary."""
    label, site, in_group, replicas, count, kind, ports = summary
    if not (isinstance(kind, type) and issubclass(kind, _nodes._Node)):
        raise TypeError("a shipped handle names %r, not a kind of node" % (kind,))
    spec = NodeSpec(label, cast(Site, tuple(site)), {} if replicas is None else {"replicas": replicas},
                    in_group)
    node = kind.__new__(kind)
    setattr(node, "ports", list(ports))
    spec.members = [node] * count
    return Handle(spec, replica)


class NodeSpec:
    """One slipway node of the program: its label, the Python node(s) its
    replicas run, its keys, and where it was defined."""

    def __init__(self, label: str, site: Site, keys: dict[str, Any], in_group: bool) -> None:
        self.label, self.site, self.keys, self.in_group = label, site, dict(keys), in_group
        self.members: list[_nodes._Node] = []   # the Python nodes; one, or one per replica
        self.member_sites: list[Site] = []

    @property
    def kind(self) -> str:
        return self.members[0].kind

    def replica_count(self) -> Optional[int]:
        """The fixed replica count, or None for an elastic node."""
        replicas = self.keys.get("replicas")
        if replicas is None:
            return len(self.members) if len(self.members) > 1 else 1
        return replicas if isinstance(replicas, int) else None

    def member_for(self, replica: int) -> _nodes._Node:
        return self.members[replica] if len(self.members) > 1 else self.members[0]


def _factory_arguments(frame: types.FrameType) -> Optional[tuple[list[Any], dict[str, Any]]]:
    """(positional, keyword) arguments of the function running in frame,
    or None when it takes none."""
    if frame.f_code.co_name.startswith("<"):
        return None
    info = inspect.getargvalues(frame)
    code = frame.f_code
    positional = [info.locals[n] for n in code.co_varnames[:code.co_argcount]]
    keywords = {n: info.locals[n] for n in
                code.co_varnames[code.co_argcount:code.co_argcount + code.co_kwonlyargcount]}
    if info.varargs:
        positional += list(info.locals[info.varargs])
    if info.keywords:
        keywords.update(info.locals[info.keywords])
    return (positional, keywords) if positional or keywords else None


class Program:
    """A distributed program: nodes added with add_node, in groups or not.
    Build it in a function of your module (`def make_program(): ...`): each
    task re-imports the module and calls that function to rebuild the graph,
    so functions and classes are never pickled. The function's arguments
    (their values when sw.Program(...) runs) are pickled into the node
    commands, so tasks rebuild the same graph: keep them plain values."""

    def __init__(self, name: str) -> None:
        if not isinstance(name, str) or not re.match(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$", name):
            raise _error(caller_site(), "Program(%r): a program name is 1 to 64 of A-Z a-z 0-9 _ - ., "
                                        "starting with a letter or digit" % (name,))
        self.name = name
        self.site = caller_site()
        frame = sys._getframe(1)
        # The function that builds the program, rebuilt in every task, and
        # the arguments it was called with (as they are at this line).
        self.factory = frame.f_code.co_name
        self.factory_qualname = frame.f_code.co_qualname
        self.module_path = os.path.abspath(frame.f_code.co_filename)
        self.factory_args = _factory_arguments(frame)
        self.specs: dict[str, NodeSpec] = {}     # label -> NodeSpec, in the order added
        self._group: Optional[NodeSpec] = None

    def group(self, name: str, **keys: Any) -> "contextlib._GeneratorContextManager[None]":
        """Nodes added inside form one slipway node `name` (replicas=N or
        "MIN:MAX", resources as in add_node)."""
        return self._grouping(name, caller_site(), keys)

    @contextlib.contextmanager
    def _grouping(self, name: str, site: Site, keys: dict[str, Any]) -> Iterator[None]:
        if self._group is not None:
            raise _error(site, "group(%r) inside group(%r): groups do not nest" % (name, self._group.label))
        spec = self._new_spec(name, site, keys, in_group=True)
        self._group = spec
        try:
            yield
        finally:
            self._group = None
        if not spec.members:
            raise _error(site, "group(%r) has no node: call p.add_node(...) inside the with block" % name)

    def add_node(self, node: _nodes._Node, label: Optional[str] = None, **keys: Any) -> Handle:
        """Adds node (sw.PyNode, CourierNode, ReplayNode, ExecNode) and returns
        its handle. Keywords: label, and the topology's node keys (replicas,
        cpus, gpus, mem, framework, env, max_retries, daemon, ...)."""
        site = caller_site()
        if not isinstance(node, _nodes._Node):
            raise _error(site, "add_node(%r): give a sw.PyNode, sw.CourierNode, sw.ReplayNode or "
                               "sw.ExecNode" % (node,))
        group = self._group
        if group is None:
            spec = self._new_spec(label or self._default_label(node), site, keys, in_group=False)
            spec.members.append(node)
            spec.member_sites.append(site)
            return Handle(spec)
        if label is not None and label != group.label:
            raise _error(site, "add_node(label=%r) inside group(%r): a group's nodes take the group's "
                               "name; leave label out" % (label, group.label))
        if keys:
            raise _error(site, "add_node(%s) inside group(%r): give resources to group(...) instead"
                               % (", ".join("%s=" % k for k in sorted(keys)), group.label))
        if group.members and type(group.members[0]) is not type(node):
            raise _error(site, "group(%r) mixes %s and %s: every replica of a group runs the same "
                               "kind of node" % (group.label, type(group.members[0]).__name__,
                                                 type(node).__name__))
        if group.members and "replicas" in group.keys:
            raise _error(site, "group(%r, replicas=%r) takes one add_node, run by every replica; "
                               "without replicas=, each add_node is one replica"
                               % (group.label, group.keys["replicas"]))
        group.members.append(node)
        group.member_sites.append(site)
        if "replicas" in group.keys:
            return Handle(group)
        return Handle(group, replica=len(group.members) - 1)

    def _default_label(self, node: _nodes._Node) -> str:
        base = getattr(getattr(node, "fn", None), "__name__", None) or type(node).__name__.lower()
        base = re.sub(r"[^A-Za-z0-9_.-]", "_", base).lstrip("_.-") or "node"
        label, n = base, 1
        while label in self.specs:
            n += 1
            label = "%s_%d" % (base, n)
        return label

    def _new_spec(self, label: str, site: Site, keys: dict[str, Any], in_group: bool) -> NodeSpec:

        if not isinstance(label, str) or not _LABEL.match(label):
            raise _error(site, "label %r: a node name is 1 to 64 of A-Z a-z 0-9 _ - ., starting with "
                               "a letter" % (label,))
        if label in self.specs:
            first = self.specs[label].site
            raise _error(site, "node %r is already defined at %s:%d; give this one another label"
                               % (label, first[0], first[1]))
        unknown = sorted(set(keys) - set(NODE_KEYS))
        if unknown:
            raise _error(site, "unknown keyword%s %s for node %r; known: %s"
                               % ("s" if len(unknown) > 1 else "", ", ".join(unknown), label,
                                  ", ".join(NODE_KEYS)))
        spec = NodeSpec(label, site, keys, in_group)
        self.specs[label] = spec
        return spec
