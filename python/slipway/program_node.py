"""The command of every Python node that sw.launch writes: runs one node of
a program in this task.

    python3 -m slipway.program_node --module PATH --node LABEL --payload FILE --payload-sha256 HEX
    python3 -m slipway.program_node --module PATH --node LABEL --program-factory make_program

Imports the program's module by path (under its file's name, with its
directory first on sys.path, as `python3 PATH` would, but without running
its `if __name__ == "__main__":` block), then finds the node LABEL: in its
payload, the node as sw.launch pickled it (slipway.shipping; the file's
SHA-256 checked first), or, without a payload (--launch=toml, or no
cloudpickle), in the program that the factory rebuilds. It runs the node as
replica $SLIPWAY_REPLICA: its handles become clients, then a PyNode's
function runs, or a CourierNode's object is constructed, its public methods
served (published as LABEL.REPLICA) and its run() called, if any, else it
serves until the program stops.

This process serves its node and never launches: sw.launch() called while
the module is imported or the factory runs (Launchpad's `main()` that makes
the program and launches it) runs the node here instead (serve()), so a
program never launches itself again from its own tasks.

The task exits as soon as the node's function (or run()) returns, without
waiting for threads it started. A node that raises prints its traceback and
the Python line that defined it, once, and exits 1: slipway then retries it
within max_retries, or stops the program.
"""

import argparse
import base64
import importlib.util
import pickle
import os
import sys
import traceback
import types
from typing import NoReturn, Optional, Sequence

from . import lifecycle
from . import nodes as _nodes
from . import program as _program


_serving: "Optional[_Task]" = None   # the _Task this process runs, when it is a task of a program


class _Task:
    """The node this process serves, from its command line."""

    def __init__(self, options: argparse.Namespace) -> None:
        self.options = options
        self.module: Optional[types.ModuleType] = None
        self.started = False
        self.where = "%s (node %r)" % (options.module, options.node)


def serving() -> bool:
    """Whether this process is a task that has not started its node yet:
    sw.launch() then serves the node (serve()) instead of launching."""
    return _serving is not None and not _serving.started


def import_module(module_path: str) -> types.ModuleType:
    """Imports the program's file by path, under its file's name."""
    directory, filename = os.path.split(os.path.abspath(module_path))
    name = os.path.splitext(filename)[0]
    if directory not in sys.path:
        sys.path.insert(0, directory)
    spec = importlib.util.spec_from_file_location(name, module_path)
    if spec is None or spec.loader is None:
        raise ImportError("cannot import the program's module %s" % module_path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module   # pickles name its classes NAME.Class in every task
    if _serving is not None:
        _serving.module = module
    spec.loader.exec_module(module)
    return module


def load_program(module_path: str, factory: str, factory_args: Optional[str] = None) -> _program.Program:
    """The Program that module_path's factory(*args, **kwargs) makes;
    factory_args: what --factory-args carries (base64 of the pickled
    (args, kwargs) the program was first built with; the command line comes
    from the topology the user launched, so it is trusted like the command)."""
    return make_program(import_module(module_path), module_path, factory, factory_args)


def make_program(module: Optional[types.ModuleType], module_path: str, factory: str,
                 factory_args: Optional[str] = None) -> _program.Program:
    make = getattr(module, factory, None)
    if not callable(make):
        raise AttributeError("%s has no function %s(): sw.launch found the program made there"
                             % (module_path, factory))
    args, kwargs = ([], {}) if not factory_args else pickle.loads(base64.b64decode(factory_args))
    program = make(*args, **kwargs)
    if not isinstance(program, _program.Program):
        raise TypeError("%s: %s() returned %r, not the sw.Program" % (module_path, factory, program))
    return program


def _env_int(name: str, default: int = 0) -> int:
    try:
        return int(os.environ.get(name, default))
    except ValueError:
        return default


def run_node(program: _program.Program, label: str) -> None:
    spec = program.specs.get(label)
    if spec is None:
        raise KeyError("program %r has no node %r (it has: %s); was the module changed since launch?"
                       % (program.name, label, ", ".join(program.specs)))
    run_member(spec.member_for(_env_int("SLIPWAY_REPLICA")), label)


def run_member(node: _nodes._Node, label: str) -> None:
    node.run_in_task(label)


def _run_shipped(task: _Task) -> None:
    from . import shipping
    options = task.options
    payload = shipping.load(options.payload, options.payload_sha256, task.module)
    if payload.get("label") != options.node:
        raise shipping.ShippingError("the payload %s is node %r's, not %r's: launch the program again"
                                     % (options.payload, payload.get("label"), options.node))
    task.where = "%s:%d" % tuple(payload["site"])
    members = payload["members"]
    replica = _env_int("SLIPWAY_REPLICA")
    run_member(members[replica] if len(members) > 1 else members[0], options.node)


def serve(program: Optional[_program.Program] = None) -> NoReturn:
    """Runs this task's node and exits the process: 0 when its function (or
    run()) returns; 1 after printing its exception, once, and the line that
    defined the node. sw.launch(program) calls it in a task that has not
    started its node; program is then the rebuilt program (used without a
    payload)."""
    task = _serving
    assert task is not None, "serve() runs in a task of a program (serving())"
    try:
        if task.options.payload:
            task.started = True
            _run_shipped(task)
        else:
            if program is None:   # the factory may call sw.launch(), which comes back here
                program = make_program(task.module, task.options.module, task.options.program_factory,
                                       task.options.factory_args)
            task.started = True
            spec = program.specs.get(task.options.node)
            if spec is not None:
                task.where = "%s:%d" % spec.site
            run_node(program, task.options.node)
    except SystemExit:
        raise
    except BaseException as exc:
        _fail(task, exc)
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


def _fail(task: _Task, exc: BaseException) -> NoReturn:
    traceback.print_exc()
    sys.stderr.write("slipway: node %r (defined at %s) failed: %s: %s\n"
                     % (task.options.node, task.where, type(exc).__name__, exc))
    sys.stderr.flush()
    sys.stdout.flush()
    os._exit(1)


def main(argv: Optional[Sequence[str]] = None) -> None:

    global _serving
    parser = argparse.ArgumentParser(prog="python3 -m slipway.program_node",
                                     description="Run one node of a Python slipway program.")
    parser.add_argument("--module", required=True, help="the program's Python file")
    parser.add_argument("--node", required=True, help="the node's label")
    parser.add_argument("--payload", help="the node as sw.launch pickled it (slipway.shipping)")
    parser.add_argument("--payload-sha256", help="the payload's SHA-256, checked before it is unpickled")
    parser.add_argument("--program-factory", default="make_program",
                        help="without --payload: the module's function that returns the sw.Program")
    parser.add_argument("--factory-args", help="the factory's arguments (base64 of pickled (args, kwargs))")
    parser.add_argument("--slipway", help="the slipway binary (for sw.stop())")
    options = parser.parse_args(argv)
    if options.payload and not options.payload_sha256:
        parser.error("--payload needs --payload-sha256")
    if options.slipway:
        lifecycle.set_slipway_binary(options.slipway)
    lifecycle.install_signal_handlers()
    sys.argv = [options.module]
    _serving = task = _Task(options)
    if not options.payload:
        task.where = "%s (made by %s())" % (options.module, options.program_factory)
    try:
        import_module(options.module)   # sw.launch() in it serves the node
    except SystemExit:
        raise
    except BaseException as exc:
        _fail(task, exc)
    serve()


if __name__ == "__main__":
    # `python3 -m slipway.program_node` runs this file as __main__: run the
    # package's own module instead, whose state sw.launch() sees.
    from slipway import program_node as _package_copy
    _package_copy.main()
