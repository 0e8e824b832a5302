"""Handles become clients in the task that receives them: a CourierNode's
handle a slipway.rpc.CourierClient (a group's: a list of them, one per
replica), a ReplayNode's a slipway.replay.Client, an ExecNode's its
addresses {port: ["host:port", ...]} (from SLIPWAY_ADDR_FILE_* when present,
for the live set, else SLIPWAY_ADDR_*). Handles nested in lists, tuples,
dicts and sets of a node's arguments are found too (find / replace).
"""

import os
from typing import Any, Callable, Optional

from . import courier
from . import program as _program

__all__ = ["find", "replace", "dereference", "HandleError"]


class HandleError(Exception):
    """A handle that cannot become a client here; the message says why."""


def find(value: Any, found: Optional[list[_program.Handle]] = None) -> list[_program.Handle]:
    """The handles in value (a node's args/kwargs), in order, once each."""
    found = [] if found is None else found
    if isinstance(value, _program.Handle):
        if all(h is not value for h in found):
            found.append(value)
    elif isinstance(value, dict):
        for item in value.values():
            find(item, found)
    elif isinstance(value, (list, tuple, set, frozenset)):
        for item in value:
            find(item, found)
    return found


def replace(value: Any, make: Callable[[_program.Handle], Any]) -> Any:
    """value with every handle h replaced by make(h)."""
    if isinstance(value, _program.Handle):
        return make(value)
    if isinstance(value, dict):
        return type(value)((k, replace(v, make)) for k, v in value.items())
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        return type(value)(*(replace(v, make) for v in value))
    if isinstance(value, (list, tuple, set, frozenset)):
        return type(value)(replace(v, make) for v in value)
    return value


def _var(name: str) -> str:
    return "".join(c if c.isalnum() else "_" for c in name).upper()


def exec_addresses(label: str, ports: list[str]) -> dict[str, list[str]]:
    """{port: [host:port per replica]} of exec node `label`, as this task sees it."""
    addresses = {}
    for port in ports:
        key = "%s_%s" % (_var(label), _var(port))
        path = os.environ.get("SLIPWAY_ADDR_FILE_" + key)
        if path and os.path.exists(path):
            with open(path) as f:
                addresses[port] = [line.strip() for line in f if line.strip()]
            continue
        value = os.environ.get("SLIPWAY_ADDR_" + key)
        if value is None:
            raise HandleError("node %r's port %r has no address in this task (neither "
                              "SLIPWAY_ADDR_FILE_%s nor SLIPWAY_ADDR_%s is set): was the handle "
                              "passed in this node's own arguments?" % (label, port, key, key))
        addresses[port] = [a for a in value.split(",") if a]
    return addresses


def dereference(spec: _program.NodeSpec, replica: Optional[int],
                endpoint: Optional[courier.Endpoint] = None) -> Any:
    """The client that the handle of spec (replica None: the whole node)
    becomes in this task: as its kind makes it (slipway.nodes)."""
    return spec.members[0].client(spec, replica, endpoint)
