"""The command of every Python node that sw.launch writes: runs one node of
a program in this task.

    python3 -m slipway.program_node --module PATH --program-factory make_program --node LABEL

Re-imports the program's module by path (under its file's name, with its
directory first on sys.path, as `python3 PATH` would, but without running
its `if __name__ == "__main__":` block), calls the factory to rebuild the
program, and runs the node LABEL as replica $SLIPWAY_REPLICA: its handles
become clients, then a PyNode's function runs, or a CourierNode's object
is constructed, its public methods served (published as LABEL.REPLICA) and
its run() called, if any, else it serves until the program stops.

The task exits as soon as the node's function (or run()) returns, without
waiting for threads it started. A node that raises prints its traceback and the Python line that defined
it, and exits 1: slipway then retries it within max_retries, or stops the
program.
"""

import argparse
import base64
import importlib.util
import pickle
import os
import sys
import traceback

from . import handles as _handles
from . import lifecycle
from . import nodes as _nodes
from . import program as _program


def load_program(module_path, factory, factory_args=None):
    """The Program that module_path's factory(*args, **kwargs) makes;
    factory_args: what --factory-args carries (base64 of the pickled
    (args, kwargs) the program was first built with; the command line comes
    from the topology the user launched, so it is trusted like the command)."""
    directory, filename = os.path.split(os.path.abspath(module_path))
    name = os.path.splitext(filename)[0]
    if directory not in sys.path:
        sys.path.insert(0, directory)
    spec = importlib.util.spec_from_file_location(name, module_path)
    if spec is None:
        raise ImportError("cannot import the program's module %s" % module_path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module   # pickles name its classes NAME.Class in every task
    spec.loader.exec_module(module)
    make = getattr(module, factory, None)
    if not callable(make):
        raise AttributeError("%s has no function %s(): sw.launch found the program made there"
                             % (module_path, factory))
    args, kwargs = ([], {}) if not factory_args else pickle.loads(base64.b64decode(factory_args))
    program = make(*args, **kwargs)
    if not isinstance(program, _program.Program):
        raise TypeError("%s: %s() returned %r, not the sw.Program" % (module_path, factory, program))
    return program


def _env_int(name, default=0):
    try:
        return int(os.environ.get(name, default))
    except ValueError:
        return default


def run_node(program, label):
    spec = program.specs.get(label)
    if spec is None:
        raise KeyError("program %r has no node %r (it has: %s); was the module changed since launch?"
                       % (program.name, label, ", ".join(program.specs)))
    replica = _env_int("SLIPWAY_REPLICA")
    node = spec.member_for(replica)
    if isinstance(node, _nodes.CourierNode):
        return _run_courier(node)
    if isinstance(node, _nodes.PyNode):
        args, kwargs = _handles.replace((node.args, node.kwargs), lambda h: h.dereference())
        node.fn(*args, **kwargs)
        return
    raise TypeError("node %r is a %s, which slipway runs itself" % (label, type(node).__name__))


def _run_courier(node):
    from . import rpc
    endpoint = rpc.process_endpoint(handler_threads=rpc.handler_threads_for_class(node.fn))
    args, kwargs = _handles.replace((node.args, node.kwargs), lambda h: h.dereference(endpoint))
    obj = node.fn(*args, **kwargs)
    rpc.serve_object(obj, endpoint)
    endpoint.publish()
    run = getattr(obj, "run", None)
    if callable(run):
        run()
        return
    lifecycle.wait_for_stop()
    endpoint.close()


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python3 -m slipway.program_node",
                                     description="Run one node of a Python slipway program.")
    parser.add_argument("--module", required=True, help="the program's Python file")
    parser.add_argument("--program-factory", default="make_program",
                        help="the module's function that returns the sw.Program")
    parser.add_argument("--node", required=True, help="the node's label")
    parser.add_argument("--factory-args", help="the factory's arguments (base64 of pickled (args, kwargs))")
    parser.add_argument("--slipway", help="the slipway binary (for sw.stop())")
    options = parser.parse_args(argv)
    if options.slipway:
        lifecycle.set_slipway_binary(options.slipway)
    lifecycle.install_signal_handlers()
    sys.argv = [options.module]
    where = "%s (made by %s())" % (options.module, options.program_factory)
    try:
        program = load_program(options.module, options.program_factory, options.factory_args)
        spec = program.specs.get(options.node)
        if spec is not None:
            where = "%s:%d" % spec.site
        run_node(program, options.node)
    except SystemExit:
        raise
    except BaseException as exc:
        traceback.print_exc()
        sys.stderr.write("slipway: node %r (defined at %s) failed: %s: %s\n"
                         % (options.node, where, type(exc).__name__, exc))
        sys.stderr.flush()
        sys.stdout.flush()
        os._exit(1)
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


if __name__ == "__main__":
    main()
