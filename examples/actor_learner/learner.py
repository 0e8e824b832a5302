"""actor_learner: the learner. It serves its parameters on the "params"
port ({"op": "get"} -> {"version": V, "weight": W}), samples batches from the
replay buffer and moves its weight toward the mean reward, one step per
batch. After --steps steps it checks what it learned, tells the replay
buffer it finished (which tells the actors to stop) and exits 0."""
import argparse
import os
import socketserver
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
import slipway_example as ex  # noqa: E402

parser = argparse.ArgumentParser()
parser.add_argument("--steps", type=int, default=20)
parser.add_argument("--batch", type=int, default=8)
parser.add_argument("--lr", type=float, default=0.3)
args = parser.parse_args()

ex.check_contract()
ex.print_contract_env()
params = {"version": 0, "weight": 0.0}
lock = threading.Lock()


class Handler(socketserver.StreamRequestHandler):
    def handle(self):
        channel = ex.JsonLines(self.request)
        while True:
            try:
                channel.receive()
            except (ConnectionError, OSError, ValueError):
                return
            with lock:
                channel.send(dict(params))


class Server(socketserver.ThreadingTCPServer):
    daemon_threads = True


server = Server(("", 0), Handler, bind_and_activate=False)
server.socket = ex.listen("params")
threading.Thread(target=server.serve_forever, daemon=True).start()

(replay_address,) = ex.addresses("replay", "data")
replay = ex.JsonLines(ex.connect(replay_address))
actors_seen = set()
deadline = time.monotonic() + 60
for step in range(1, args.steps + 1):
    while True:
        batch = replay.call({"op": "sample", "n": args.batch})["items"]
        if len(batch) == args.batch:
            break
        ex.check(time.monotonic() < deadline, "no experience arrived within 60 s; are the actors running?")
        time.sleep(0.05)
    mean_reward = sum(item["reward"] for item in batch) / len(batch)
    actors_seen.update(item["actor"] for item in batch)
    with lock:
        params["weight"] += args.lr * (mean_reward - params["weight"])
        params["version"] = step
    print(f"step {step}: mean reward {mean_reward:.3f}, weight {params['weight']:.3f}", flush=True)

weight = params["weight"]
ex.check(0.8 < weight < 1.2, f"weight {weight:.3f} did not approach the mean reward 1.0")
print(f"learned weight {weight:.3f} in {args.steps} steps from actors {sorted(actors_seen)}", flush=True)
replay.call({"op": "finish"})
server.shutdown()
server.server_close()
