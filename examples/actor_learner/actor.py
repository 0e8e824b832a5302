"""actor_learner: an actor. It fetches the learner's parameters, generates
a few rewards (around 1.0) per episode and puts them into the replay buffer,
until the learner has finished (its params port stops answering)."""
import os
import random
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
import slipway_example as ex  # noqa: E402

ex.check_contract()
ex.print_contract_env()
actor = int(os.environ["SLIPWAY_REPLICA"])
(learner_address,) = ex.addresses("learner", "params")
(replay_address,) = ex.addresses("replay", "data")
learner = ex.JsonLines(ex.connect(learner_address))  # retries until the learner listens
replay = ex.JsonLines(ex.connect(replay_address))
rng = random.Random(actor)
episodes = 0
deadline = time.monotonic() + 120
while time.monotonic() < deadline:
    try:
        version = learner.call({"op": "get"})["version"]
    except (ConnectionError, OSError, ValueError):
        print(f"learner finished; {episodes} episodes sent", flush=True)
        sys.exit(0)
    items = [{"actor": actor, "version": version, "reward": rng.gauss(1.0, 0.1)} for _ in range(4)]
    replay.call({"op": "put", "items": items})
    episodes += 1
    time.sleep(0.02)
ex.fail("the learner did not finish within 120 s")
