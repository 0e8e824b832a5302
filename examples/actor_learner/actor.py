"""actor_learner: an actor, Ape-X style. Each episode it fetches the
learner's weight from its "params" port (keeping the last one it had while
the learner is not there: not listening yet, or finished), then generates
--length transitions of a noisy linear world (x uniform in [-1, 1],
reward = 2x + noise), gives each the priority |reward - w x| (its error
under the current weight: Ape-X actors compute the initial priorities) and
appends it to the replay node's "experience" table through a pipelined
writer. After each episode it puts a summary on the "episodes" queue. It
ends after --episodes episodes, or at the end of its episode when a
checkpoint notice stops the program (it keeps no state: its transitions are
in the replay node, which checkpoints them), and exits 0 either way."""
import argparse
import os
import pickle
import random
import socket
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
import slipway_example as ex  # noqa: E402
import slipway as sw  # noqa: E402
from slipway import replay  # noqa: E402

SLOPE, NOISE = 2.0, 0.1  # the world the learner has to find

parser = argparse.ArgumentParser()
parser.add_argument("--episodes", type=int, default=40)
parser.add_argument("--length", type=int, default=64, help="transitions per episode")
parser.add_argument("--pause", type=float, default=0.1, help="seconds between episodes")
args = parser.parse_args()

ex.check_contract()
actor = int(os.environ["SLIPWAY_REPLICA"])
attempt = int(os.environ["SLIPWAY_ATTEMPT"])
(learner_address,) = ex.addresses("learner", "params")
rng = random.Random(1000 * actor + attempt)
learner = None


def fetch_params(last):
    """(weight, version) from the learner, or `last` when it does not answer."""
    global learner
    try:
        if learner is None:
            learner = ex.JsonLines(socket.create_connection(learner_address, timeout=5))
        params = learner.call({"op": "get"})
        return params["weight"], params["version"]
    except (ConnectionError, OSError, ValueError):
        if learner is not None:
            learner.close()
            learner = None
        return last


stop = threading.Event()
sw.on_checkpoint(lambda notice: stop.set() if notice.stop else None)

rb = replay.Client("replay")
episodes = replay.Queue("replay", "episodes")
weight, version, stopped = 0.0, 0, False
with rb.writer("experience", max_in_flight=8) as writer:
    for episode in range(args.episodes):
        if stop.is_set():
            print(f"actor: stopping after {episode} episodes for a checkpoint notice", flush=True)
            stopped = True
            break
        weight, version = fetch_params((weight, version))
        total_error = 0.0
        for _ in range(args.length):
            x = rng.uniform(-1.0, 1.0)
            reward = SLOPE * x + rng.gauss(0.0, NOISE)
            error = abs(reward - weight * x)
            writer.append(pickle.dumps((actor, x, reward)), priority=error + 1e-3)
            total_error += error
        episodes.put({"actor": actor, "episode": episode, "version": version,
                      "mean_error": total_error / args.length})
        time.sleep(args.pause)
if not stopped:
    print(f"sent {args.episodes} episodes of {args.length} transitions; "
          f"last weight {weight:.3f} (learner version {version})", flush=True)
