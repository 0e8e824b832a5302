"""Writes a sw.Program as a slipway topology (TOML, docs/topology.md), and
maps `slipway validate`'s FILE:LINE:COL back to the Python line that made
the node.

Each Python node's command re-imports the program's module by path in the
task and runs that node (slipway.program_node): the node pickled at launch
(its payload and SHA-256 in the command), or without payloads the node of
the program its factory rebuilds; `handles` come from the
handles found in its arguments; the add_node/group keywords become node
keys; a comment before each node names the Python file and line.
"""

import base64
import functools
import math
import os
import pickle
import re
import sys
from typing import Any, Callable, Optional

from . import handles as _handles
from . import program as _program

__all__ = ["write", "Topology", "map_errors"]

# {label: (payload file, its SHA-256)} of the shipped nodes (slipway.shipping.ship).
Shipped = dict[str, tuple[str, str]]



def _string(value: str) -> str:
    out = ['"']
    for ch in value:
        if ch in '"\\':
            out.append("\\" + ch)
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append("\\u%04x" % ord(ch))
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def _key(name: str) -> str:
    return name if re.match(r"^[A-Za-z0-9_-]+$", name) else _string(name)


def value(v: Any) -> str:
    """One TOML value (strings, integers, floats, booleans, lists, inline tables)."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if math.isnan(v) or math.isinf(v):
            raise ValueError("%r has no place in a topology" % v)
        return repr(v)
    if isinstance(v, str):
        return _string(v)
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(value(item) for item in v) + "]"
    if isinstance(v, dict):
        return "{ " + ", ".join("%s = %s" % (_key(str(k)), value(item)) for k, item in v.items()) + " }" \
            if v else "{}"
    raise TypeError("%r (%s) cannot be written in a topology: use a string, number, boolean, list "
                    "or dict" % (v, type(v).__name__))


class Topology:
    """The text, and which lines came from which Python line."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        # (first line, last line, site, what), 1-based
        self.origins: list[tuple[int, int, _program.Site, str]] = []

    def add(self, text: str) -> None:
        self.lines.append(text)

    def block(self, site: _program.Site, what: str, write: Callable[[], object]) -> None:
        first = len(self.lines) + 1
        write()
        self.origins.append((first, len(self.lines), site, what))

    def text(self) -> str:
        return "\n".join(self.lines) + "\n"

    def origin(self, line: int) -> tuple[Optional[_program.Site], Optional[str]]:
        for first, last, site, what in self.origins:
            if first <= line <= last:
                return site, what
        return None, None


def _command(program: _program.Program, spec: _program.NodeSpec, slipway_binary: Optional[str],
             shipped: Optional[Shipped]) -> list[str]:
    argv = [sys.executable, "-m", "slipway.program_node", "--module", program.module_path]
    if shipped is not None:
        path, digest = shipped[spec.label]
        argv += ["--node", spec.label, "--payload", path, "--payload-sha256", digest]
    else:
        argv += ["--program-factory", program.factory, "--node", spec.label]
        if program.factory_args is not None:
            argv += ["--factory-args", _factory_args(program)]
    if slipway_binary:
        argv += ["--slipway", slipway_binary]
    return argv


def _factory_args(program: _program.Program) -> str:
    """The factory's arguments for the command line: pickled, base64."""
    try:
        data = pickle.dumps(program.factory_args, protocol=pickle.HIGHEST_PROTOCOL)
        pickle.loads(data)
    except Exception as exc:
        raise _program.ProgramError(
            "%s:%d: the arguments of %s() cannot be passed to the tasks, which call it again to "
            "rebuild the program (%s): give it plain values (numbers, strings, lists, dicts)"
            % (program.site[0], program.site[1], program.factory, exc)) from None
    return base64.b64encode(data).decode("ascii")


def _handled(program: _program.Program, spec: _program.NodeSpec) -> list[str]:
    """Labels of the nodes whose handles spec's arguments carry."""
    labels: list[str] = []
    for member, site in zip(spec.members, spec.member_sites):
        for handle in _handles.find(member.arguments()):
            target = handle._spec
            if program.specs.get(target.label) is not target:
                raise _program.ProgramError("%s:%d: node %r is given a handle to node %r of another "
                                            "program" % (site[0], site[1], spec.label, target.label))
            kind = target.members[0]
            refusal = kind.handle_refusal(target.label)
            if refusal is not None:
                raise _program.ProgramError(
                    "%s:%d: node %r is given the handle of %s %r (defined at %s:%d), which %s"
                    % (site[0], site[1], spec.label, type(kind).__name__, target.label,
                       target.site[0], target.site[1], refusal))
            if target.label not in labels:
                labels.append(target.label)
    return labels


def write(program: _program.Program, slipway_binary: Optional[str] = None, workdir: Optional[str] = None,
          shipped: Optional[Shipped] = None) -> Topology:
    """The program as a Topology; raises ProgramError at the Python line of a
    mistake found here. shipped: {label: (payload, sha256)} of every Python
    node (slipway.shipping.ship), which the tasks then run; None: the tasks
    rebuild the program by calling its factory again."""
    if not program.specs:
        raise _program.ProgramError("%s:%d: program %r has no node: add some with p.add_node(...)"
                                    % (program.site[0], program.site[1], program.name))
    workdir = workdir or os.getcwd()
    t = Topology()
    t.add("# Written by slipway.launch from %s (the program that %s() makes)." %
          (program.module_path, program.factory))
    if shipped is None:
        t.add("# Edit the Python file, not this one: every task re-imports it and runs its node.")
    else:
        t.add("# Every task runs its node as sw.launch pickled it (the payload in its command): "
              "launch again after editing the Python file.")
    def program_table() -> None:
        t.add("")
        t.add("[program]")
        t.add("name = %s" % value(program.name))
    t.block(program.site, "program %r" % program.name, program_table)
    for spec in program.specs.values():
        t.block(spec.site, "node %r" % spec.label, functools.partial(
            _write_node, t, program, spec, slipway_binary, workdir, shipped))
    return t


def _write_node(t: Topology, program: _program.Program, spec: _program.NodeSpec,
                slipway_binary: Optional[str], workdir: str, shipped: Optional[Shipped]) -> None:
    member = spec.members[0]
    where = "%s:%d" % spec.site
    handled = _handled(program, spec)
    t.add("")
    t.add("# node %r: defined at %s (%s)" % (spec.label, where, type(member).__name__))
    t.add("[node.%s]" % _key(spec.label))
    t.add("type = %s" % value(member.kind))
    for key, item in member.topology_keys(lambda: _command(program, spec, slipway_binary, shipped)).items():
        t.add("%s = %s" % (key, value(item)))
    keys = dict(spec.keys)
    for key, item in member.default_keys(workdir).items():
        keys.setdefault(key, item)
    if len(spec.members) > 1 and "replicas" not in keys:
        keys["replicas"] = len(spec.members)
    if handled:
        t.add("handles = %s" % value(handled))
    for key in _program.NODE_KEYS:
        if key in keys:
            try:
                t.add("%s = %s" % (key, value(keys[key])))
            except (TypeError, ValueError) as exc:
                raise _program.ProgramError("%s: node %r, %s=: %s" % (where, spec.label, key, exc)) from None
    for path, table in member.topology_tables():
        t.add("")
        t.add("[node.%s.%s]" % (_key(spec.label), ".".join(_key(part) for part in path)))
        for key, item in table.items():
            t.add("%s = %s" % (key, value(item)))


_LOCATED = re.compile(r"^(?P<file>.*?):(?P<line>\d+):(?P<col>\d+): (?P<message>.*)$")


def map_errors(topology: Topology, path: str, output: str) -> list[str]:
    """`slipway validate` output lines, each FILE:LINE:COL of `path` turned
    into the Python file:line of the node it falls in (the topology's place
    kept at the end)."""
    mapped = []
    for line in output.splitlines():
        m = _LOCATED.match(line)
        if not m or os.path.abspath(m.group("file")) != os.path.abspath(path):
            if line.strip():
                mapped.append(line)
            continue
        site, what = topology.origin(int(m.group("line")))
        if site is None:
            mapped.append(line)
            continue
        mapped.append("%s:%d: %s: %s (topology %s:%s:%s)" % (site[0], site[1], what, m.group("message"),
                                                             path, m.group("line"), m.group("col")))
    return mapped
