"""actor_learner: the learner. It serves its weight on its "params" port
({"op": "get"} -> {"version": V, "weight": W}) and fits reward = w x to the
actors' transitions by prioritized replay: each step it samples --batch
transitions from the replay node's "experience" table (probability in
proportion to priority^0.6), weighs each by its importance weight
(N P(i))^-beta / max (the correction of prioritized replay), takes one SGD
step on the weighted squared error, and gives every sampled transition its
new error as priority. Between steps it reads the actors' episode summaries
from the "episodes" queue. After --steps steps it checks that w approached
the world's slope (2.0) and that episodes came from at least two actors,
and exits 0.

It resumes (docs/resume.md): every 10 steps, on a checkpoint notice and on
SIGTERM it saves its step, weight and what it heard to learner.json in its
node's state directory ($SLIPWAY_STATE_DIR, atomically: sw.save_state),
and at start it reloads that file when there is one (`learner: resumed at
step S (resume R)`, S the steps it had done) and goes on from the next
step. On a notice that stops the program it saves and exits 0 at once.
Without a state directory (outside slipway) it saves nothing."""
import argparse
import json
import os
import pickle
import socketserver
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
import slipway_example as ex  # noqa: E402
import slipway as sw  # noqa: E402
from slipway import replay  # noqa: E402

parser = argparse.ArgumentParser()
parser.add_argument("--steps", type=int, default=150)
parser.add_argument("--batch", type=int, default=32)
parser.add_argument("--lr", type=float, default=0.5)
parser.add_argument("--beta", type=float, default=0.4, help="importance-sampling exponent")
parser.add_argument("--pause", type=float, default=0.03, help="seconds per step (the model's compute)")
args = parser.parse_args()

ex.check_contract()
STATE = os.path.join(sw.state_dir(), "learner.json") if sw.state_dir() else None


def save(state):
    """Writes `state` to STATE atomically (the next start finds the old file or
    the new one, whole); nothing outside slipway."""
    sw.save_state("learner.json", lambda f: f.write(json.dumps(state).encode()))


def load():
    """The saved state, or None when there is none."""
    if STATE is None or not os.path.exists(STATE):
        return None
    with open(STATE) as f:
        return json.load(f)


# What a save writes: one dict, replaced whole after each step, so the
# checkpoint handler reads it without a lock (on SIGTERM it runs in the
# main thread, between two of its statements).
current = load() or {"step": 0, "weight": 0.0, "actors_heard": [], "actors_sampled": [], "episodes_read": 0}
if current["step"] > 0 or sw.resume_count() > 0:
    print(f"learner: resumed at step {current['step']} (resume {sw.resume_count()})", flush=True)
stop = threading.Event()


@sw.on_checkpoint
def checkpoint(notice):
    state = current
    save(state)
    if notice.stop:
        stop.set()
    print(f"learner: saved step {state['step']} for notice {notice.seq} ({notice.reason})", flush=True)


params = {"version": current["step"], "weight": current["weight"]}
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

rb = replay.Client("replay")
episodes = replay.Queue("replay", "episodes")
actors_heard, actors_sampled = set(current["actors_heard"]), set(current["actors_sampled"])
episodes_read = current["episodes_read"]
for step in range(current["step"] + 1, args.steps + 1):
    if stop.is_set():
        save(current)
        print(f"learner: stopping at step {current['step']} for a checkpoint notice (state saved)", flush=True)
        server.shutdown()
        sys.exit(0)
    batch = rb.sample("experience", n=args.batch, timeout=60)
    transitions = [pickle.loads(s.data) for s in batch]
    corrections = [(s.table_size * s.probability) ** -args.beta for s in batch]
    largest = max(corrections)
    weight = params["weight"]
    gradient = sum(c / largest * (reward - weight * x) * x
                   for c, (_, x, reward) in zip(corrections, transitions)) / len(batch)
    weight += args.lr * gradient
    with lock:
        params["weight"], params["version"] = weight, step
    rb.update_priorities("experience", {s.key: abs(reward - weight * x) + 1e-3
                                        for s, (_, x, reward) in zip(batch, transitions)})
    actors_sampled.update(actor for actor, _, _ in transitions)
    while True:  # the summaries that are there now
        try:
            summary = episodes.get(timeout=0)
        except replay.Empty:
            break
        except PermissionError as error:
            # Restored from a checkpoint of a run whose secret was another
            # (queue items are signed with SLIPWAY_TOKEN): said, then skipped.
            print(f"learner: dropped an episode summary: {error}", flush=True)
            continue
        actors_heard.add(summary["actor"])
        episodes_read += 1
    current = {"step": step, "weight": weight, "actors_heard": sorted(actors_heard),
               "actors_sampled": sorted(actors_sampled), "episodes_read": episodes_read}
    if step % 10 == 0 or step == args.steps:
        save(current)
    if step % 25 == 0:
        print(f"step {step}: weight {weight:.3f}, {len(batch)} sampled (table {batch[0].table_size}), "
              f"{episodes_read} episodes read", flush=True)
    time.sleep(args.pause)

weight = params["weight"]
ex.check(1.8 < weight < 2.2, f"weight {weight:.3f} did not approach the slope 2.0")
ex.check(len(actors_heard) >= 2, f"episode summaries came from actors {sorted(actors_heard)}, not two or more")
print(f"learned weight {weight:.3f} in {args.steps} steps from actors {sorted(actors_sampled)}; "
      f"{episodes_read} episode summaries from actors {sorted(actors_heard)}", flush=True)
server.shutdown()
server.server_close()
