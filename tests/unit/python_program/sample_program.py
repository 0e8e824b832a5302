"""A program for program_test.py: every kind of node, a group with
replicas, a per-replica group, resources, env and a replay node's tables.
Only its topology is written; nothing runs."""

import slipway as sw


class Learner:
    def __init__(self, replay, inference):
        self.replay, self.inference = replay, inference

    def get_params(self):
        return 1

    def run(self):
        pass


class Inference:
    @sw.batched_handler(batch_size=8, timeout=0.1)
    def infer(self, xs):
        return xs


def actor(learner, inference, replay, web, peers=()):
    pass


def make_program():
    p = sw.Program("sample")
    replay = p.add_node(sw.ReplayNode(   # REPLAY-LINE
        tables={"experience": sw.Table(sampler=sw.Prioritized(0.6), remover=sw.Fifo(), max_size=10**6,
                                       rate_limiter=sw.SampleToInsertRatio(8.0, 1000, 800)),
                "tasks": sw.Table(kind="queue", max_size=100)},
        checkpoint={"every": "15m"}), label="replay", mem="8G")
    inference = p.add_node(sw.CourierNode(Inference), label="inference")   # INFERENCE-LINE
    learner = p.add_node(sw.CourierNode(Learner, replay, inference=inference), label="learner", gpus=1,  # LEARNER-LINE
                         framework="torch", env={"OMP_NUM_THREADS": 4}, max_retries=3)
    web = p.add_node(sw.ExecNode("python3 -m http.server", ports=["http"]), label="web", daemon=True)
    with p.group("evaluator"):   # EVALUATOR-LINE
        evaluators = [p.add_node(sw.CourierNode(Inference)) for _ in range(3)]
    with p.group("actor", replicas="2:8", cpus=2):   # ACTOR-LINE
        p.add_node(sw.PyNode(actor, learner, inference=inference, replay=replay,
                             web=web, peers=[evaluators[0], {"x": evaluators[2]}]))
    return p
