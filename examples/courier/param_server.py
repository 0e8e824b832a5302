"""courier example: the parameter server (a courier node). It serves a linear
model y = w*x + b: get_weights returns it, push_gradient applies one SGD step.
With --crash-at V it dies at version V on its first attempt, to show a
callee restart: slipway relaunches it and its callers follow the new address
(the model starts again from zero; SGD recovers)."""
import argparse
import json
import os
import sys
import threading

import courier_path  # noqa: F401  (the slipway package of this source tree)
from slipway import courier

parser = argparse.ArgumentParser()
parser.add_argument("--lr", type=float, default=0.05)
parser.add_argument("--crash-at", type=int, default=0, help="die at this version (attempt 0 only)")
args = parser.parse_args()

attempt = int(os.environ.get("SLIPWAY_ATTEMPT", "0"))
lock = threading.Lock()
model = {"w": 0.0, "b": 0.0, "version": 0, "attempt": attempt}


def get_weights(_request):
    with lock:
        return json.dumps(model)


def push_gradient(request):
    grad = json.loads(request)
    with lock:
        model["w"] -= args.lr * grad["dw"]
        model["b"] -= args.lr * grad["db"]
        model["version"] += 1
        if args.crash_at and attempt == 0 and model["version"] == args.crash_at:
            print(f"crashing on purpose at version {model['version']} (attempt {attempt})", flush=True)
            os._exit(3)
        return json.dumps(model)


endpoint = courier.Endpoint()
endpoint.register("get_weights", get_weights)
endpoint.register("push_gradient", push_gradient)
endpoint.publish()  # as SLIPWAY_NODE.SLIPWAY_REPLICA, i.e. ps.0
print(f"serving get_weights, push_gradient as {endpoint.name} (attempt {attempt})", flush=True)
endpoint.serve_forever()  # until slipway stops this daemon (SIGTERM)
print(f"stopped at version {model['version']}: w={model['w']:.3f} b={model['b']:.3f}", flush=True)
sys.exit(0)
