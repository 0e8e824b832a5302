"""courier example: a worker. It resolves the parameter server by node name,
then per step fetches the weights, computes the gradient of the squared error
on a batch of its own data (y = 3x + 1 plus noise), and pushes it. Calls that
fail because the server restarted are retried; at the end the worker checks
that the model it reads has learned w ~ 3, b ~ 1."""
import argparse
import json
import os
import random
import sys
import time

import courier_path  # noqa: F401
from slipway import courier

parser = argparse.ArgumentParser()
parser.add_argument("--steps", type=int, default=40)
parser.add_argument("--batch", type=int, default=16)
args = parser.parse_args()

replica = int(os.environ["SLIPWAY_REPLICA"])
rng = random.Random(replica)
endpoint = courier.Endpoint()
ps = endpoint.resolve("ps")  # replica 0; the address comes from the rendezvous
RETRY = {"peer_lost", "peer_restarted", "timeout", "closed"}


def call(method, data=b""):
    """Calls the parameter server, riding out its restart."""
    deadline = time.monotonic() + 120
    while True:
        try:
            return json.loads(ps.call(method, data, timeout=10))
        except courier.CourierError as e:
            if e.code not in RETRY or time.monotonic() > deadline:
                raise
            print(f"retrying {method}: {e.code}: {e}", flush=True)
            time.sleep(0.2)


restarts_seen = set()
for step in range(args.steps):
    model = call("get_weights")
    restarts_seen.add(model["attempt"])
    xs = [rng.uniform(-1, 1) for _ in range(args.batch)]
    errors = [(model["w"] * x + model["b"]) - (3 * x + 1 + rng.gauss(0, 0.05)) for x in xs]
    grad = {"dw": 2 * sum(e * x for e, x in zip(errors, xs)) / len(xs),
            "db": 2 * sum(errors) / len(xs)}
    call("push_gradient", json.dumps(grad))

# Keep the others company until the model has converged (they share it).
deadline = time.monotonic() + 60
while True:
    model = call("get_weights")
    if abs(model["w"] - 3) < 0.5 and abs(model["b"] - 1) < 0.3:
        break
    if time.monotonic() > deadline:
        print(f"did not converge: w={model['w']:.3f} b={model['b']:.3f}", flush=True)
        sys.exit(1)
    time.sleep(0.1)
print(f"done: w={model['w']:.3f} b={model['b']:.3f} version={model['version']} "
      f"server attempts seen={sorted(restarts_seen)}", flush=True)
endpoint.close()
