"""A small program through the whole Python API, run for real under
`slipway run` by python_program_test.py: a replay node, a CourierNode
learner (pickled calls, futures, a remote exception, a batched method), a
group of two actors, a per-replica group of two producers, an ExecNode with
a port, an elastic group, and sw.stop() from the learner's run(); the
program is made with an argument (actors=2), which every task gets too."""

import os
import pickle
import threading

import slipway as sw


class Learner:
    def __init__(self, replay, producers, echo, judges):
        self.replay, self.producers, self.echo, self.judges = replay, producers, echo, judges
        self.calls = 0
        self.lock = threading.Lock()

    def get_params(self, scale=1.0):
        with self.lock:
            self.calls += 1
        return {"w": 1.5 * scale}

    def fail(self):
        raise ValueError("learner has no gradient yet")

    @sw.batched_handler(batch_size=4, timeout=0.5)
    def infer(self, xs):
        return [("batch", len(xs), x * 2) for x in xs]

    def run(self):
        seen = set()
        while len(seen) < 4:    # two distinct items from each actor (samples repeat)
            seen.update(s.data for s in self.replay.sample("experience", n=1, timeout=60))
        names = sorted(p.name() for p in self.producers)
        print("learner: producers", names, "echo", sorted(self.echo))
        print("learner: judges", sorted(j.name() for j in self.judges))
        print("learner: ok after %d get_params calls" % self.calls, flush=True)
        sw.stop()
        sw.wait_for_stop(30)


class Producer:
    def __init__(self, index):
        self.index = index

    def name(self):
        return "producer-%d" % self.index


class Judge:
    def name(self):
        return "judge-" + os.environ["SLIPWAY_REPLICA"]


def actor(learner, replay):
    replica = int(os.environ["SLIPWAY_REPLICA"])
    params = learner.get_params(scale=2.0)
    assert params == {"w": 3.0}, params
    future = learner.futures.get_params()
    assert future.result(timeout=60) == {"w": 1.5}
    try:
        learner.fail()
        raise AssertionError("fail() did not raise")
    except ValueError as exc:
        assert "learner has no gradient yet" in str(exc)
        assert "in fail" in str(exc.__cause__), exc.__cause__
    futures = [learner.futures.infer(replica * 10 + i) for i in range(4)]
    results = [f.result(timeout=60) for f in futures]
    assert [r[2] for r in results] == [(replica * 10 + i) * 2 for i in range(4)], results
    print("actor %d: batches %s" % (replica, sorted(set(r[1] for r in results))))
    print("actor %d: ok" % replica, flush=True)   # before the inserts that let the learner stop
    for i in range(2):
        replay.insert(pickle.dumps((replica, i)), priorities={"experience": 1.0})


def make_program(actors=3):
    p = sw.Program("python-program")
    replay = p.add_node(sw.ReplayNode(tables={"experience": sw.Table(sampler=sw.Uniform(),
                                                                    max_size=1000)}), label="replay")
    with p.group("producer"):
        producers = [p.add_node(sw.CourierNode(Producer, i)) for i in range(2)]
    echo = p.add_node(sw.ExecNode(["/usr/bin/python3", "-c",
                                   "import signal, time\nsignal.pause()"], ports=["http"]),
                      label="echo", daemon=True)
    with p.group("judge", replicas="2:3"):   # elastic: its handle is the replicas running
        judges = p.add_node(sw.CourierNode(Judge))
    learner = p.add_node(sw.CourierNode(Learner, replay=replay, producers=producers, echo=echo,
                                        judges=judges),
                         label="learner")
    with p.group("actor", replicas=actors):
        p.add_node(sw.PyNode(actor, learner=learner, replay=replay))
    return p


if __name__ == "__main__":
    sw.launch(make_program(actors=2))   # tasks rebuild it with actors=2 too
