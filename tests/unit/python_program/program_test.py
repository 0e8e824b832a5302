"""Unit tests of slipway's Python program API (unit:python_program:api):
the topology sw.launch writes (parsed back with tomllib), errors at the
Python line, slipway validate's errors mapped back to Python, handles
becoming clients, the signed pickled RPC and batched handlers. No slipway,
no UCX: calls go through fake handles and endpoints."""

import base64
import os
import pickle
import sys
import tempfile
import threading
import tomllib
import unittest

SOURCE = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..", "..")
sys.path.insert(0, os.path.join(SOURCE, "python"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import slipway as sw  # noqa: E402
from slipway import handles, rpc, topology_writer  # noqa: E402
launch = sys.modules["slipway.launch"]
import sample_program  # noqa: E402

SAMPLE = os.path.abspath(sample_program.__file__)


def line_of(path, marker):
    with open(path) as f:
        for number, line in enumerate(f, 1):
            if marker in line:
                return number
    raise AssertionError("no %s in %s" % (marker, path))


def _made_with(count, *, scale=1.0):
    p = sw.Program("made")
    p.add_node(sw.PyNode(print, count, scale), label="n")
    return p


class TopologyTest(unittest.TestCase):
    def setUp(self):
        self.program = sample_program.make_program()
        self.topology = topology_writer.write(self.program, slipway_binary="/opt/sw/bin/slipway",
                                              workdir="/work/dir")
        self.toml = tomllib.loads(self.topology.text())
        self.nodes = self.toml["node"]

    def test_program_and_order(self):
        self.assertEqual(self.toml["program"], {"name": "sample"})
        self.assertEqual(list(self.nodes), ["replay", "inference", "learner", "web", "evaluator", "actor"])

    def test_replay_node(self):
        replay = self.nodes["replay"]
        self.assertEqual(replay["type"], "replay")
        self.assertEqual(replay["mem"], "8G")
        self.assertNotIn("command", replay)
        self.assertNotIn("workdir", replay)
        self.assertEqual(replay["tables"]["experience"], {
            "sampler": {"prioritized": 0.6}, "remover": "fifo", "max_size": 1000000,
            "rate_limiter": {"samples_per_insert": 8.0, "min_size_to_sample": 1000, "error_buffer": 800}})
        self.assertEqual(replay["tables"]["tasks"], {"kind": "queue", "max_size": 100})
        self.assertEqual(replay["checkpoint"], {"every": "15m"})

    def test_courier_node(self):
        learner = self.nodes["learner"]
        self.assertEqual(learner["type"], "courier")
        self.assertEqual(learner["command"], [sys.executable, "-m", "slipway.program_node", "--module", SAMPLE,
                                              "--program-factory", "make_program", "--node", "learner",
                                              "--slipway", "/opt/sw/bin/slipway"])
        self.assertEqual(learner["handles"], ["replay", "inference"])
        self.assertEqual((learner["gpus"], learner["framework"], learner["max_retries"]), (1, "torch", 3))
        self.assertEqual(learner["env"], {"OMP_NUM_THREADS": 4})
        self.assertEqual(learner["workdir"], "/work/dir")
        self.assertNotIn("daemon", learner)            # it has run(): the program waits for it
        self.assertIs(self.nodes["inference"]["daemon"], True)   # no run(): serves until the end

    def test_groups_and_exec(self):
        actor = self.nodes["actor"]
        self.assertEqual((actor["type"], actor["replicas"], actor["cpus"]), ("exec", "2:8", 2))
        self.assertEqual(actor["handles"], ["learner", "inference", "replay", "web", "evaluator"])
        evaluator = self.nodes["evaluator"]
        self.assertEqual((evaluator["type"], evaluator["replicas"], evaluator["daemon"]), ("courier", 3, True))
        web = self.nodes["web"]
        self.assertEqual((web["command"], web["ports"], web["daemon"]),
                         ("python3 -m http.server", ["http"], True))

    def test_comments_name_the_python_line(self):
        lines = self.topology.text().splitlines()
        for label, marker in (("learner", "LEARNER-LINE"), ("replay", "REPLAY-LINE"),
                              ("actor", "ACTOR-LINE"), ("evaluator", "EVALUATOR-LINE")):
            header = lines.index("[node.%s]" % label)
            self.assertIn("defined at %s:%d" % (SAMPLE, line_of(SAMPLE, marker)), lines[header - 1])

    def test_validate_errors_map_to_python(self):
        lines = self.topology.text().splitlines()
        gpus = next(i for i, line in enumerate(lines, 1) if line.startswith("gpus = 1"))
        table = lines.index("[node.replay.tables.tasks]") + 2
        output = ("/t/p.toml:%d:8: 'gpus' must be at least 0\n/t/p.toml:%d:1: bad max_size\n"
                  "/t/p.toml:5:1: something about the program\nother.toml:3:1: elsewhere\n") % (gpus, table)
        mapped = topology_writer.map_errors(self.topology, "/t/p.toml", output)
        self.assertEqual(mapped[0], "%s:%d: node 'learner': 'gpus' must be at least 0 (topology /t/p.toml:%d:8)"
                         % (SAMPLE, line_of(SAMPLE, "LEARNER-LINE"), gpus))
        self.assertTrue(mapped[1].startswith("%s:%d: node 'replay': bad max_size"
                                             % (SAMPLE, line_of(SAMPLE, "REPLAY-LINE"))), mapped[1])
        self.assertTrue(mapped[2].startswith("%s:%d: program 'sample':" % self.program.site), mapped[2])
        self.assertEqual(mapped[3], "other.toml:3:1: elsewhere")

    def test_factory_arguments_reach_the_tasks(self):
        self.assertNotIn("--factory-args", self.nodes["learner"]["command"])
        program = _made_with(4, scale=0.5)
        command = tomllib.loads(topology_writer.write(program).text())["node"]["n"]["command"]
        encoded = command[command.index("--factory-args") + 1]
        self.assertEqual(pickle.loads(base64.b64decode(encoded)), ([4], {"scale": 0.5}))
        self.assertEqual(command[command.index("--program-factory") + 1], "_made_with")
        with self.assertRaises(sw.ProgramError) as caught:
            topology_writer.write(_made_with(lambda: 1))
        self.assertIn("cannot be passed to the tasks", str(caught.exception))

    def test_launch_toml_writes_the_file(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "out.toml")
            real = launch.find_slipway

            def missing(_explicit=None):
                raise FileNotFoundError("none here")
            launch.find_slipway = missing
            try:
                written = sw.launch(self.program, argv=["prog.py", "--launch=toml", "--toml", path, "--own-flag"])
            finally:
                launch.find_slipway = real
            self.assertEqual(written, path)
            with open(path, "rb") as f:
                self.assertEqual(list(tomllib.load(f)["node"])[0], "replay")


def _raises(test, fn, *fragments):
    with test.assertRaises(sw.ProgramError) as caught:
        fn()
    for fragment in fragments:
        test.assertIn(fragment, str(caught.exception))
    return str(caught.exception)


def noop(*_args, **_kwargs):
    pass


class ErrorTest(unittest.TestCase):
    def test_errors_at_the_python_line(self):
        here = os.path.abspath(__file__)
        p = sw.Program("errors")
        line = sys._getframe().f_lineno + 1
        _raises(self, lambda: p.add_node(sw.PyNode(noop), label="a", gpu=1), "%s:%d:" % (here, line),
                "unknown keyword gpu")
        p.add_node(sw.PyNode(noop), label="b")
        _raises(self, lambda: p.add_node(sw.PyNode(noop), label="b"), "node 'b' is already defined at")
        _raises(self, lambda: p.add_node(sw.PyNode(noop), label="9x"), "a node name is")
        _raises(self, lambda: p.add_node(noop), "give a sw.PyNode")
        with self.assertRaises(sw.ProgramError):
            with p.group("g", replicas=2):
                p.add_node(sw.PyNode(noop))
                p.add_node(sw.PyNode(noop))
        with self.assertRaises(sw.ProgramError) as caught:
            with p.group("h"):
                p.add_node(sw.PyNode(noop), cpus=2)
        self.assertIn("give resources to group", str(caught.exception))
        with self.assertRaises(sw.ProgramError) as caught:
            with p.group("k"):
                pass
        self.assertIn("has no node", str(caught.exception))

    def test_handles_that_cannot_become_clients(self):
        def handing_a_pynode():
            p = sw.Program("handles")
            plain = p.add_node(sw.PyNode(noop), label="plain")
            p.add_node(sw.PyNode(noop, plain), label="user")   # USER-LINE
            return p

        def handing_a_portless_exec():
            q = sw.Program("handles2")
            portless = q.add_node(sw.ExecNode(["true"]), label="portless")
            q.add_node(sw.PyNode(noop, x={"y": [portless]}), label="user")
            return q
        here = os.path.abspath(__file__)
        _raises(self, lambda: topology_writer.write(handing_a_pynode()),
                "%s:%d: node 'user' is given the handle of PyNode 'plain'" % (here, line_of(here, "USER-LINE")))
        _raises(self, lambda: topology_writer.write(handing_a_portless_exec()), "ExecNode 'portless'", "no ports")

    def test_program_outside_a_function(self):
        made = {}
        exec("import slipway as sw\np = sw.Program('top')\np.add_node(sw.PyNode(len, 1))", made)
        _raises(self, lambda: sw.launch(made["p"], launch_type="test", argv=["x"]),
                "made outside a function")
        _raises(self, lambda: sw.launch(made["p"], launch_type="test_mp", argv=["x"]),
                "made outside a function")   # Launchpad's name for it
        with self.assertRaises(ValueError):
            sw.launch(made["p"], launch_type="vertex_ai", argv=["x"])

        def nested():
            return sw.Program("nested")
        _raises(self, lambda: sw.launch(nested(), launch_type="test", argv=["x"]),
                "not a function at the top level")


class HandleTest(unittest.TestCase):
    def setUp(self):
        self.program = sample_program.make_program()
        self.specs = self.program.specs

    def test_courier_handles_become_clients(self):
        learner = sw.Handle(self.specs["learner"]).dereference(endpoint=object())
        self.assertIsInstance(learner, sw.CourierClient)
        self.assertEqual((learner._node, learner._replica), ("learner", 0))
        group = sw.Handle(self.specs["evaluator"]).dereference(endpoint=object())
        self.assertEqual([c._replica for c in group], [0, 1, 2])
        one = sw.Handle(self.specs["evaluator"], replica=2).dereference(endpoint=object())
        self.assertEqual((one._node, one._replica), ("evaluator", 2))

    def test_nested_handles_are_replaced(self):
        actor = self.specs["actor"].members[0]
        found = handles.find((actor.args, actor.kwargs))
        self.assertEqual([h.label for h in found], ["learner", "inference", "replay", "web", "evaluator",
                                                     "evaluator"])
        args, kwargs = handles.replace((actor.args, actor.kwargs), lambda h: (h.label, h._replica))
        self.assertEqual(args, (("learner", None),))
        self.assertEqual(kwargs["peers"], [("evaluator", 0), {"x": ("evaluator", 2)}])

    def test_exec_handles_become_addresses(self):
        web = sw.Handle(self.specs["web"])
        os.environ["SLIPWAY_ADDR_WEB_HTTP"] = "h1:80,h2:81"
        try:
            self.assertEqual(web.dereference(), {"http": ["h1:80", "h2:81"]})
            with tempfile.NamedTemporaryFile("w", suffix=".addrs") as f:
                f.write("h3:90\nh4:91\n")
                f.flush()
                os.environ["SLIPWAY_ADDR_FILE_WEB_HTTP"] = f.name
                self.assertEqual(web.dereference(), {"http": ["h3:90", "h4:91"]})
        finally:
            os.environ.pop("SLIPWAY_ADDR_WEB_HTTP", None)
            os.environ.pop("SLIPWAY_ADDR_FILE_WEB_HTTP", None)
        with self.assertRaises(handles.HandleError) as caught:
            web.dereference()
        self.assertIn("SLIPWAY_ADDR_WEB_HTTP", str(caught.exception))

    def test_pynode_handle_is_refused(self):
        p = sw.Program("x")
        h = p.add_node(sw.PyNode(noop), label="plain")
        with self.assertRaises(handles.HandleError):
            h.dereference()


class _Trap:
    """Unpickling it would record that it happened."""
    loaded = []

    def __reduce__(self):
        return (_Trap.loaded.append, ("unpickled!",))


class _FakeEndpoint:
    def __init__(self):
        self.methods = {}

    def register(self, name, fn):
        self.methods[name] = fn


class _FakeHandle:
    """Calls the handlers of a _FakeEndpoint directly, as courier would."""

    def __init__(self, endpoint):
        self.endpoint = endpoint

    def call(self, method, data=b"", timeout=None):
        if method not in self.endpoint.methods:
            raise sw.courier.CourierError("no_such_method", "no method %r" % method)
        return self.endpoint.methods[method](data)


class Unpicklable(Exception):
    def __reduce__(self):
        raise TypeError("no")


class Service:
    def __init__(self):
        self.batches = []

    def add(self, a, b=0):
        return a + b

    def fail(self):
        raise KeyError("missing thing")

    def odd(self):
        raise Unpicklable("cannot travel")

    def _private(self):
        return "hidden"

    def run(self):
        return "not served"

    @sw.batched_handler(batch_size=4, timeout=5.0)
    def square(self, xs, scale):
        self.batches.append(len(xs))
        return [x * x * s for x, s in zip(xs, scale)]


class RpcTest(unittest.TestCase):
    def setUp(self):
        os.environ["SLIPWAY_TOKEN"] = "secret-of-this-program"
        self.endpoint = _FakeEndpoint()
        self.service = Service()
        self.names = rpc.serve_object(self.service, self.endpoint)
        self.client = sw.CourierClient("svc", 0)
        self.client._handle = _FakeHandle(self.endpoint)

    def tearDown(self):
        os.environ.pop("SLIPWAY_TOKEN", None)

    def test_public_methods_only(self):
        self.assertEqual(sorted(self.names), ["add", "fail", "odd", "square"])

    def test_calls_and_futures(self):
        self.assertEqual(self.client.add(2, b=3), 5)
        self.assertEqual(self.client.futures.add(4).result(timeout=10), 4)
        with self.assertRaises(AttributeError):
            self.client.nothing_here()

    def test_remote_exceptions(self):
        with self.assertRaises(KeyError) as caught:
            self.client.fail()
        self.assertIn("in fail", str(caught.exception.__cause__))
        self.assertIn("raise KeyError", str(caught.exception.__cause__))
        with self.assertRaises(sw.RemoteError) as caught:
            self.client.odd()
        self.assertEqual(caught.exception.type_name, "Unpicklable")
        self.assertIn("cannot travel", str(caught.exception))

    def test_unsigned_or_foreign_requests_are_never_unpickled(self):
        handler = self.endpoint.methods["add"]
        with self.assertRaises(PermissionError):
            handler(pickle.dumps(((_Trap(),), {})))
        forged = rpc._seal(rpc._REQUEST, "add", ((_Trap(),), {}))
        os.environ["SLIPWAY_TOKEN"] = "another-program"
        with self.assertRaises(PermissionError):
            handler(forged)
        os.environ["SLIPWAY_TOKEN"] = "secret-of-this-program"
        with self.assertRaises(PermissionError):   # signed for another method
            self.endpoint.methods["fail"](forged)
        self.assertEqual(_Trap.loaded, [])
        reply = handler(rpc._seal(rpc._REQUEST, "add", ((1, 2), {})))
        with self.assertRaises(PermissionError):   # a reply is not a request
            handler(reply)

    def test_no_token_no_rpc(self):
        os.environ.pop("SLIPWAY_TOKEN")
        with self.assertRaises(sw.courier.CourierError) as caught:
            self.client.add(1)
        self.assertIn("SLIPWAY_TOKEN", str(caught.exception))

    def test_batched_calls_are_gathered(self):
        results = [None] * 4
        barrier = threading.Barrier(4)

        def call(i):
            barrier.wait()
            results[i] = self.client.square(i, scale=10)
        threads = [threading.Thread(target=call, args=(i,)) for i in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(30)
        self.assertEqual(results, [0, 10, 40, 90])
        self.assertEqual(self.service.batches, [4])

    def test_batched_mismatch_fails_the_batch(self):
        with self.assertRaises(ValueError):
            rpc.batched_handler(0)
        self.assertEqual(rpc.handler_threads_for_class(Service), 8)
        batcher = rpc._Batcher(lambda xs, scale=None: [0] * len(xs), 2, 5.0)
        errors = []
        barrier = threading.Barrier(2)

        def call(kwargs):
            barrier.wait()
            try:
                batcher(1, **kwargs)
            except TypeError as exc:
                errors.append(str(exc))
        threads = [threading.Thread(target=call, args=(kw,)) for kw in ({}, {"scale": 2})]
        for t in threads:
            t.start()
        for t in threads:
            t.join(30)
        self.assertEqual(len(errors), 2)
        self.assertIn("must pass the same arguments", errors[0])
        wrong = rpc._Batcher(lambda xs: [], 2, 0.01)
        with self.assertRaises(ValueError) as caught:
            wrong(1)
        self.assertIn("return one per call", str(caught.exception))

class LifecycleTest(unittest.TestCase):
    def test_sigterm_sets_the_event_and_runs_handlers(self):
        import signal
        from slipway import lifecycle
        before = {sig: signal.getsignal(sig) for sig in (signal.SIGTERM, signal.SIGINT)}
        called = []
        try:
            lifecycle.install_signal_handlers()
            sw.register_stop_handler(lambda: called.append("handler"))
            event = sw.stop_event()
            self.assertFalse(sw.wait_for_stop(0.01))
            os.kill(os.getpid(), signal.SIGTERM)
            self.assertTrue(sw.wait_for_stop(5))
            self.assertTrue(event.is_set())
            self.assertEqual(called, ["handler"])
        finally:
            for sig, handler in before.items():
                signal.signal(sig, handler)
            lifecycle._handlers.clear()
            lifecycle._event.clear()

    def test_stop_outside_a_program(self):
        saved = {k: os.environ.pop(k) for k in ("SLIPWAY_RDZV", "SLIPWAY_TOKEN") if k in os.environ}
        try:
            with self.assertRaises(RuntimeError) as caught:
                sw.stop()
            self.assertIn("slipway stop", str(caught.exception))
        finally:
            os.environ.update(saved)


class EndpointOptionsTest(unittest.TestCase):
    def test_an_unknown_directory_is_a_value_error_naming_the_choices(self):
        class _NoLibrary:   # the check comes before the library is used
            def __getattr__(self, name):
                return lambda *args: None
        real = sw.courier.load_library
        sw.courier.load_library = _NoLibrary
        try:
            with self.assertRaises(ValueError) as caught:
                sw.courier.Endpoint(directory="bogus")
        finally:
            sw.courier.load_library = real
        for accepted in ("'auto'", "'rendezvous'", "'none'", "'bogus'"):
            self.assertIn(accepted, str(caught.exception))


if __name__ == "__main__":
    unittest.main(argv=[sys.argv[0]], verbosity=2)
