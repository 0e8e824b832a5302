"""The kinds of node a Python program is made of (Launchpad's names): PyNode
(a function), CourierNode (an object whose public methods are served over
courier RPC), ReplayNode (slipway's replay and queue service, with its
tables) and ExecNode (any command, for services that are not Python).

A node only records what it was given; slipway.program places it in a
program and slipway.topology_writer writes it as a topology node.
"""

from typing import Any, Callable, Iterable, Optional, Union

__all__ = ["PyNode", "CourierNode", "ReplayNode", "ExecNode", "Table", "Uniform", "Fifo", "Lifo",
           "MaxHeap", "MinHeap", "Prioritized", "MinSize", "SampleToInsertRatio"]


class _Node:
    kind: str = ""       # the topology's type: "exec", "courier" or "replay"

    def python_callable(self) -> Optional[Callable[..., Any]]:
        return None


class _PythonNode(_Node):
    """A node of Python code of this program: a callable and its arguments."""

    def __init__(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> None:
        if not callable(fn):
            raise TypeError("%s(fn, ...): the first argument must be callable, not %r"
                            % (type(self).__name__, fn))
        self.fn, self.args, self.kwargs = fn, args, kwargs

    def python_callable(self) -> Optional[Callable[..., Any]]:
        return self.fn


class PyNode(_PythonNode):
    """Runs fn(*args, **kwargs) in each task; the task ends when it returns
    (an exception fails the task). Handles among the arguments arrive as
    clients."""
    kind = "exec"


class CourierNode(_PythonNode):
    """Constructs cls(*args, **kwargs) in each task and serves its public
    methods over courier RPC; calls run() after serving starts if the class
    has one (the task ends when it returns), else serves until the program
    stops (the node is then a daemon: it does not keep the program alive)."""
    kind = "courier"

    def has_run(self) -> bool:
        return callable(getattr(self.fn, "run", None))


# A value of the topology's TOML: a string, number, boolean, list or table.
TomlValue = Any


class _Selector:
    name: Optional[str] = None

    def toml_value(self) -> TomlValue:
        return self.name


class Uniform(_Selector):
    name = "uniform"


class Fifo(_Selector):
    name = "fifo"


class Lifo(_Selector):
    name = "lifo"


class MaxHeap(_Selector):
    name = "max_heap"


class MinHeap(_Selector):
    name = "min_heap"


class Prioritized(_Selector):
    """Samples in proportion to priority**exponent."""

    def __init__(self, exponent: float) -> None:
        self.exponent = exponent

    def toml_value(self) -> TomlValue:
        return {"prioritized": self.exponent}


class MinSize:
    """Samples wait until the table holds min_size items."""

    def __init__(self, min_size: int) -> None:
        self.min_size = min_size

    def toml_value(self) -> TomlValue:
        return {"min_size": self.min_size}


class SampleToInsertRatio:
    """Reverb's SampleToInsertRatio (docs/topology.md, `rate_limiter`)."""

    def __init__(self, samples_per_insert: float, min_size_to_sample: int, error_buffer: float) -> None:
        self.samples_per_insert = samples_per_insert
        self.min_size_to_sample = min_size_to_sample
        self.error_buffer = error_buffer

    def toml_value(self) -> TomlValue:
        return {"samples_per_insert": self.samples_per_insert,
                "min_size_to_sample": self.min_size_to_sample,
                "error_buffer": self.error_buffer}


def _selector(value: Any, what: str) -> TomlValue:
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, _Selector):
        return value.toml_value()
    if isinstance(value, type) and issubclass(value, _Selector) and value is not Prioritized:
        return value.name
    raise TypeError("Table(%s=...): give sw.Uniform(), sw.Fifo(), sw.Lifo(), sw.MaxHeap(), "
                    "sw.MinHeap(), sw.Prioritized(exponent) or its name, not %r" % (what, value))


class Table:
    """One table of a ReplayNode (docs/topology.md, `[node.NAME.tables.TABLE]`).
    kind: "table" (default), "queue", "stack" or "work". Keys left None take
    slipway's defaults for the kind."""

    def __init__(self, sampler: Any = None, remover: Any = None, max_size: Optional[int] = None,
                 max_times_sampled: Optional[int] = None, rate_limiter: Any = None,
                 kind: Optional[str] = None, lease: Optional[str] = None) -> None:
        self.keys: dict[str, TomlValue] = {}
        for key, value in (("kind", kind), ("sampler", _selector(sampler, "sampler")),
                           ("remover", _selector(remover, "remover")), ("max_size", max_size),
                           ("max_times_sampled", max_times_sampled), ("lease", lease)):
            if value is not None:
                self.keys[key] = value
        if rate_limiter is not None:
            if isinstance(rate_limiter, dict):
                self.keys["rate_limiter"] = dict(rate_limiter)
            elif hasattr(rate_limiter, "toml_value"):
                self.keys["rate_limiter"] = rate_limiter.toml_value()
            else:
                raise TypeError("Table(rate_limiter=...): give sw.MinSize(n), "
                                "sw.SampleToInsertRatio(...) or a dict, not %r" % (rate_limiter,))


class ReplayNode(_Node):
    """slipway's replay service (slipway-replay): tables={name: sw.Table(...)}
    and optionally checkpoint={"every": "15m", "path": ...}. Its handle
    arrives as a slipway.replay.Client."""
    kind = "replay"

    def __init__(self, tables: dict[str, Table], checkpoint: Optional[dict[str, TomlValue]] = None) -> None:
        if not isinstance(tables, dict) or not tables:
            raise TypeError("ReplayNode(tables=...): give a dict of table name -> sw.Table(...)")
        for name, table in tables.items():
            if not isinstance(table, Table):
                raise TypeError("ReplayNode: table %r must be a sw.Table(...), not %r" % (name, table))
        self.tables = dict(tables)
        self.checkpoint = dict(checkpoint) if checkpoint else None


class ExecNode(_Node):
    """Runs a command (argv list or string) that is not Python of this
    program, listening on the named `ports` (SLIPWAY_PORT_<PORT>). Its handle
    arrives as {port: ["host:port", ...]} in replica order."""
    kind = "exec"

    def __init__(self, command: Union[str, Iterable[object]], ports: Iterable[str] = ()) -> None:
        if not command:
            raise TypeError("ExecNode(command, ...): the command is empty")
        self.command: Union[str, list[str]] = \
            command if isinstance(command, str) else [str(word) for word in command]

        self.ports = list(ports)
