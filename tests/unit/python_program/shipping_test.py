"""Unit tests of how a Python program's nodes reach their tasks
(unit:python_program:shipping), without slipway: nodes shipped with
cloudpickle (closures, lambdas, classes made in a function, per-replica
arguments, handles) and loaded back only with their SHA-256; payloads that
were changed, linked or are not files refused unread; and sw.launch()
called inside a task (Launchpad's main() re-run there) serving the task's
node once instead of launching (issue 27, item 6)."""

import contextlib
import io
import os
import pickle
import sys
import tempfile
import threading
import tomllib
import unittest

SOURCE = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..", "..")
sys.path.insert(0, os.path.join(SOURCE, "python"))

import slipway as sw  # noqa: E402
from slipway import program_node, shipping, topology_writer  # noqa: E402
launch = sys.modules["slipway.launch"]

HERE = sys.modules[__name__]
calls = []


def record(*args):
    calls.append(args)


class Greeter:
    def __init__(self, greeting):
        self.greeting = greeting


def make_program(stamp, base):
    """Closures over stamp and base, a lambda, a class made here, handles."""
    p = sw.Program("shipped")

    class Adder:
        def add(self, x):
            return base + x

    adder = p.add_node(sw.CourierNode(Adder), label="adder")
    web = p.add_node(sw.ExecNode(["true"], ports=["http"]), label="web")

    def closure(adder_handle, web_handle, greeter):
        record("closure", stamp, adder_handle, web_handle, greeter.greeting)

    p.add_node(sw.PyNode(closure, adder, web_handle=web, greeter=Greeter("hi")), label="closure")
    p.add_node(sw.PyNode(lambda: record("lambda", stamp, [i * i for i in range(base)])), label="lam")
    with p.group("worker"):
        for i in range(2):
            p.add_node(sw.PyNode(lambda i=i: record("worker", i, stamp)))
    return p


def line_of(marker):
    with open(__file__) as f:
        return next(n for n, text in enumerate(f, 1) if text.rstrip().endswith("# " + marker))


def _payloads(program, directory):
    shipped = shipping.ship(program, directory)
    return {label: shipping.load(path, digest, HERE) for label, (path, digest) in shipped.items()}, shipped


class _Trap:
    """Unpickling it would record that it happened."""
    loaded = []

    def __reduce__(self):
        return (_Trap.loaded.append, ("unpickled!",))


class ShippingTest(unittest.TestCase):
    def setUp(self):
        calls.clear()
        self.tmp = tempfile.TemporaryDirectory()
        self.directory = os.path.join(self.tmp.name, "p.nodes")

    def tearDown(self):
        self.tmp.cleanup()

    def test_closures_lambdas_and_local_classes_arrive_as_launched(self):
        payloads, shipped = _payloads(make_program("s-1", 3), self.directory)
        self.assertEqual(sorted(shipped), ["adder", "closure", "lam", "worker"])   # not the ExecNode
        self.assertEqual(os.stat(self.directory).st_mode & 0o777, 0o700)
        lam = payloads["lam"]["members"][0]
        lam.fn()
        workers = payloads["worker"]["members"]
        for member in workers:
            member.fn()
        adder_class = payloads["adder"]["members"][0].fn
        self.assertEqual(adder_class().add(2), 5)                      # closes over base=3
        self.assertEqual(calls, [("lambda", "s-1", [0, 1, 4]), ("worker", 0, "s-1"), ("worker", 1, "s-1")])
        self.assertEqual(payloads["lam"]["label"], "lam")
        self.assertEqual(payloads["lam"]["site"][0], os.path.abspath(__file__))

    def test_the_program_files_own_names_go_by_reference(self):
        payloads, _ = _payloads(make_program("s-2", 1), self.directory)
        closure = payloads["closure"]["members"][0]
        self.assertIs(type(closure.kwargs["greeter"]), Greeter)   # this file's class, not a copy
        with open(shipping.ship(make_program("s-2", 1), self.directory)["closure"][0], "rb") as f:
            self.assertIn(b"_program_object", f.read())

    def test_handles_travel_as_what_their_clients_need(self):
        payloads, _ = _payloads(make_program("s-3", 1), self.directory)
        closure = payloads["closure"]["members"][0]
        adder = closure.args[0].dereference(endpoint=object())
        self.assertIsInstance(adder, sw.CourierClient)
        self.assertEqual((adder._node, adder._replica), ("adder", 0))
        os.environ["SLIPWAY_ADDR_WEB_HTTP"] = "h1:80"
        try:
            self.assertEqual(closure.kwargs["web_handle"].dereference(), {"http": ["h1:80"]})
        finally:
            os.environ.pop("SLIPWAY_ADDR_WEB_HTTP")

    def test_commands_name_the_payload_and_its_digest(self):
        program = make_program("s-4", 1)
        shipped = shipping.ship(program, self.directory)
        nodes = tomllib.loads(topology_writer.write(program, shipped=shipped).text())["node"]
        command = nodes["lam"]["command"]
        self.assertEqual(command[command.index("--payload") + 1], shipped["lam"][0])
        self.assertEqual(command[command.index("--payload-sha256") + 1], shipped["lam"][1])
        self.assertNotIn("--program-factory", command)
        self.assertNotIn("--factory-args", command)   # make_program's arguments are not needed
        self.assertEqual(nodes["web"]["command"], ["true"])

    def test_a_changed_payload_is_never_unpickled(self):
        path, digest = shipping.ship(make_program("s-5", 1), self.directory)["lam"]
        with open(path, "wb") as f:
            f.write(pickle.dumps(_Trap()))
        with self.assertRaises(shipping.ShippingError) as caught:
            shipping.load(path, digest, HERE)
        self.assertIn(path, str(caught.exception))
        self.assertIn("launch the program again", str(caught.exception))
        self.assertEqual(_Trap.loaded, [])

    def test_links_fifos_and_missing_files_are_refused_unread(self):
        path, digest = shipping.ship(make_program("s-6", 1), self.directory)["lam"]
        link = os.path.join(self.tmp.name, "link.pickle")
        os.symlink(path, link)
        fifo = os.path.join(self.tmp.name, "fifo.pickle")
        os.mkfifo(fifo)
        for bad, why in ((link, "cannot open"), (fifo, "not a regular file"),
                         (os.path.join(self.tmp.name, "none.pickle"), "cannot open")):
            with self.assertRaises(shipping.ShippingError) as caught:
                shipping.load(bad, digest, HERE)   # a FIFO must not block
            self.assertIn(why, str(caught.exception))
            self.assertIn(bad, str(caught.exception))

    def test_what_cannot_pickle_is_refused_at_the_python_line(self):
        p = sw.Program("unshippable")
        p.add_node(sw.PyNode(record, threading.Lock()), label="locked")   # LOCKED-LINE
        with self.assertRaises(sw.ProgramError) as caught:
            shipping.ship(p, self.directory)
        where = "%s:%d: node 'locked' cannot be shipped" % (os.path.abspath(__file__), line_of("LOCKED-LINE"))
        self.assertIn(where, str(caught.exception))
        self.assertIn("inside the node's function", str(caught.exception))


class _Exited(Exception):
    def __init__(self, status):
        super().__init__(status)
        self.status = status


class _Options:
    def __init__(self, node, module, payload=None, payload_sha256=None):
        self.node, self.module, self.payload, self.payload_sha256 = node, module, payload, payload_sha256
        self.program_factory, self.factory_args = "make_program", None


def boom():
    raise RuntimeError("boom on purpose")


def launchpad_main():
    """Launchpad's shape: the program made and launched in one function."""
    p = sw.Program("failing")
    p.add_node(sw.PyNode(record, "ran"), label="ok")
    p.add_node(sw.PyNode(boom), label="boom")
    sw.launch(p)
    calls.append(("launch returned",))


class ServeInTaskTest(unittest.TestCase):
    """sw.launch() in a task that has not started its node runs the node and
    exits (os._exit is replaced to see the status); it never launches."""

    def setUp(self):
        calls.clear()
        self.saved = (os._exit, launch.find_slipway, program_node._serving)

        def exit_(status):
            raise _Exited(status)

        def no_launch(_explicit=None):
            raise AssertionError("sw.launch() inside a task tried to launch the program")
        os._exit = exit_
        launch.find_slipway = no_launch

    def tearDown(self):
        os._exit, launch.find_slipway, program_node._serving = self.saved

    def _serve(self, options, fn):
        program_node._serving = program_node._Task(options)
        program_node._serving.module = HERE
        err = io.StringIO()
        with contextlib.redirect_stderr(err), self.assertRaises(_Exited) as caught:
            fn()
        return caught.exception.status, err.getvalue()

    def test_launch_in_a_task_runs_its_node_and_exits_0(self):
        status, _ = self._serve(_Options("ok", __file__), launchpad_main)
        self.assertEqual(status, 0)
        self.assertEqual(calls, [("ran",)])   # launch() did not return into main()
        self.assertFalse(program_node.serving())

    def test_a_raising_node_is_reported_once_and_exits_1(self):
        status, err = self._serve(_Options("boom", __file__), launchpad_main)
        self.assertEqual(status, 1)
        self.assertEqual(err.count("RuntimeError: boom on purpose"), 2)   # traceback's last line + summary
        self.assertEqual(err.count("Traceback (most recent call last)"), 1)
        self.assertEqual(err.count("slipway: node 'boom' (defined at %s:" % os.path.abspath(__file__)), 1)
        self.assertEqual(calls, [])

    def test_the_shipped_node_is_served_whatever_launch_is_given(self):
        path, digest = shipping.ship(make_program("s-7", 2), tempfile.mkdtemp())["lam"]
        status, _ = self._serve(_Options("lam", __file__, path, digest), launchpad_main)
        self.assertEqual(status, 0)
        self.assertEqual(calls, [("lambda", "s-7", [0, 1])])

    def test_outside_a_task_launch_launches(self):
        program_node._serving = None
        with self.assertRaises(AssertionError) as caught:
            launchpad_main()
        self.assertIn("tried to launch", str(caught.exception))


if __name__ == "__main__":
    unittest.main(argv=[sys.argv[0]], verbosity=2)
