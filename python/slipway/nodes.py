"""The kinds of node a Python program is made of (Launchpad's names): PyNode
(a function), CourierNode (an object whose public methods are served over
courier RPC), ReplayNode (slipway's replay and queue service, with its
tables) and ExecNode (any command, for services that are not Python).

A node records what it was given, and each kind knows what becomes of it
(_Node's methods): slipway.program places it in a program,
slipway.topology_writer writes it as a topology node with the keys its kind
gives, slipway.handles makes its handle into the client its kind gives, and
slipway.program_node runs it in its task as its kind does.
"""

from typing import TYPE_CHECKING, Any, Callable, Iterable, Optional, Union

if TYPE_CHECKING:
    from . import courier
    from .program import NodeSpec

__all__ = ["PyNode", "CourierNode", "ReplayNode", "ExecNode", "Table", "Uniform", "Fifo", "Lifo",
           "MaxHeap", "MinHeap", "Prioritized", "MinSize", "SampleToInsertRatio"]

# A value of the topology's TOML: a string, number, boolean, list or table.
TomlValue = Any


class _Node:
    """What every kind of node does, each in its own way (one subclass per
    kind): what it writes into the topology, whether sw.launch ships it to
    its tasks, what its handle becomes in a task, and what its task runs.
    Nothing outside a kind asks which kind a node is."""

    kind: str = ""       # the topology's type: "exec", "courier" or "replay"
    ships = False        # pickled for its tasks by sw.launch (slipway.shipping)

    def python_callable(self) -> Optional[Callable[..., Any]]:
        return None

    def arguments(self) -> Any:
        """What may hold handles to other nodes (slipway.handles.find)."""
        return ()

    def topology_keys(self, python_command: Callable[[], list[str]]) -> dict[str, TomlValue]:
        """The keys written after the node's `type`, in order;
        python_command() is the command of a node of this program's Python."""
        return {}

    def default_keys(self, workdir: str) -> dict[str, TomlValue]:
        """Node keys this kind takes unless add_node or group gave them."""
        return {}

    def topology_tables(self) -> list[tuple[tuple[str, ...], dict[str, TomlValue]]]:
        """The node's sub-tables, [node.NAME.PATH...], after its keys."""
        return []

    def handle_refusal(self, label: str) -> Optional[str]:
        """Why this node's handle (its label: `label`) cannot be given to
        another node, as the end of "..., which ..."; None when it can."""
        return None

    def client(self, spec: "NodeSpec", replica: Optional[int],
               endpoint: "Optional[courier.Endpoint]") -> Any:
        """What the handle of spec (this kind's node; replica None: the whole
        node) becomes in this task."""
        raise NotImplementedError(type(self).__name__)

    def run_in_task(self, label: str) -> None:
        """Runs this node in its task (slipway.program_node)."""
        raise TypeError("node %r is a %s, which slipway runs itself" % (label, type(self).__name__))


class _PythonNode(_Node):
    """A node of Python code of this program: a callable and its arguments."""

    ships = True

    def __init__(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> None:
        if not callable(fn):
            raise TypeError("%s(fn, ...): the first argument must be callable, not %r"
                            % (type(self).__name__, fn))
        self.fn, self.args, self.kwargs = fn, args, kwargs

    def python_callable(self) -> Optional[Callable[..., Any]]:
        return self.fn

    def arguments(self) -> Any:
        return (self.args, self.kwargs)

    def topology_keys(self, python_command: Callable[[], list[str]]) -> dict[str, TomlValue]:
        return {"command": python_command()}

    def default_keys(self, workdir: str) -> dict[str, TomlValue]:
        return {"workdir": workdir}


class PyNode(_PythonNode):
    """Runs fn(*args, **kwargs) in each task; the task ends when it returns
    (an exception fails the task). Handles among the arguments arrive as
    clients."""
    kind = "exec"

    def handle_refusal(self, label: str) -> Optional[str]:
        return "serves nothing; make %r a CourierNode" % label

    def client(self, spec: "NodeSpec", replica: Optional[int],
               endpoint: "Optional[courier.Endpoint]") -> Any:
        from .handles import HandleError
        raise HandleError("node %r (defined at %s:%d) is a PyNode: it serves nothing, so its handle "
                          "cannot be passed to another node; make it a CourierNode"
                          % (spec.label, spec.site[0], spec.site[1]))

    def run_in_task(self, label: str) -> None:
        from . import handles
        args, kwargs = handles.replace((self.args, self.kwargs), lambda h: h.dereference())
        self.fn(*args, **kwargs)


class CourierNode(_PythonNode):
    """Constructs cls(*args, **kwargs) in each task and serves its public
    methods over courier RPC; calls run() after serving starts if the class
    has one (the task ends when it returns), else serves until the program
    stops (the node is then a daemon: it does not keep the program alive)."""
    kind = "courier"

    def has_run(self) -> bool:
        return callable(getattr(self.fn, "run", None))

    def default_keys(self, workdir: str) -> dict[str, TomlValue]:
        keys = super().default_keys(workdir)
        if not self.has_run():
            keys["daemon"] = True    # serves until the program stops
        return keys

    def client(self, spec: "NodeSpec", replica: Optional[int],
               endpoint: "Optional[courier.Endpoint]") -> Any:
        from . import rpc
        if replica is not None:
            return rpc.CourierClient(spec.label, replica, endpoint)
        if not spec.in_group:
            return rpc.CourierClient(spec.label, 0, endpoint)
        count = spec.replica_count()
        if count is None:   # elastic: the replicas that run now
            endpoint = endpoint or rpc.process_endpoint()
            live = [int(h.name.rsplit(".", 1)[1]) for h in endpoint.resolve_all(spec.label)]
            return [rpc.CourierClient(spec.label, i, endpoint) for i in live]
        return [rpc.CourierClient(spec.label, i, endpoint) for i in range(count)]

    def run_in_task(self, label: str) -> None:
        from . import handles, lifecycle, rpc
        endpoint = rpc.process_endpoint(handler_threads=rpc.handler_threads_for_class(self.fn))
        args, kwargs = handles.replace((self.args, self.kwargs), lambda h: h.dereference(endpoint))
        obj = self.fn(*args, **kwargs)
        rpc.serve_object(obj, endpoint)
        endpoint.publish()
        run = getattr(obj, "run", None)
        if callable(run):
            run()
            return
        lifecycle.wait_for_stop()
        endpoint.close()


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

    def topology_tables(self) -> list[tuple[tuple[str, ...], dict[str, TomlValue]]]:
        tables: list[tuple[tuple[str, ...], dict[str, TomlValue]]] = \
            [(("tables", name), table.keys) for name, table in self.tables.items()]
        if self.checkpoint:
            tables.append((("checkpoint",), self.checkpoint))
        return tables

    def client(self, spec: "NodeSpec", replica: Optional[int],
               endpoint: "Optional[courier.Endpoint]") -> Any:
        from . import replay, rpc
        return replay.Client(spec.label, endpoint=endpoint or rpc.process_endpoint())


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

    def topology_keys(self, python_command: Callable[[], list[str]]) -> dict[str, TomlValue]:
        keys: dict[str, TomlValue] = {"command": self.command}
        if self.ports:
            keys["ports"] = self.ports
        return keys

    def default_keys(self, workdir: str) -> dict[str, TomlValue]:
        return {"workdir": workdir}

    def handle_refusal(self, label: str) -> Optional[str]:
        return None if self.ports else "has no ports; give it ports=[...]"

    def client(self, spec: "NodeSpec", replica: Optional[int],
               endpoint: "Optional[courier.Endpoint]") -> Any:
        from . import handles
        if not self.ports:
            raise handles.HandleError("node %r (defined at %s:%d) is an ExecNode without ports: its "
                                      "handle has no address to become; give ExecNode(..., ports=[...])"
                                      % (spec.label, spec.site[0], spec.site[1]))
        return handles.exec_addresses(spec.label, self.ports)
