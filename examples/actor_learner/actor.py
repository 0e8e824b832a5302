"""actor_learner: an actor. It fetches the learner's parameters, generates
a few rewards (around 1.0) per episode and puts them into the replay buffer,
until the learner has finished. When the learner does not answer, the replay
buffer (a daemon, alive to the end) says whether it finished, perhaps before
this actor even started, or has not started yet."""
import os
import random
import socket
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
import slipway_example as ex  # noqa: E402

ex.check_contract()
ex.print_contract_env()
actor = int(os.environ["SLIPWAY_REPLICA"])
(learner_address,) = ex.addresses("learner", "params")
(replay_address,) = ex.addresses("replay", "data")
replay = ex.JsonLines(ex.connect(replay_address))  # retries until replay listens


def learner_finished():
    return replay.call({"op": "status"})["finished"]


rng = random.Random(actor)
learner = None
episodes = 0
deadline = time.monotonic() + 120
while time.monotonic() < deadline:
    try:
        if learner is None:
            learner = ex.JsonLines(socket.create_connection(learner_address, timeout=10))
        version = learner.call({"op": "get"})["version"]
    except (ConnectionError, OSError, ValueError):
        if learner_finished():
            print(f"learner finished; {episodes} episodes sent", flush=True)
            sys.exit(0)
        ex.check(learner is None, "lost the learner before it finished")
        time.sleep(0.1)  # not listening yet
        continue
    items = [{"actor": actor, "version": version, "reward": rng.gauss(1.0, 0.1)} for _ in range(4)]
    replay.call({"op": "put", "items": items})
    episodes += 1
    time.sleep(0.02)
ex.fail("the learner did not finish within 120 s")
