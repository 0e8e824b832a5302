#!/usr/bin/python3
"""The learner of `slipway-bench resume` (and, with --plain, of its peer: the
same loop run by plain srun, resuming from its own checkpoint the way
submitit and PyTorch Lightning do: SIGTERM saves, the requeued job reloads).

At its first start (SLIPWAY_RESUME 0, no saved state) it fills the replay
node's "experience" table with --items items and records how many were
acknowledged ("acked N" in its state, and a line `filled N T`). Then it steps
every --pause seconds, printing `step S R T` (step, resume count, unix
time), saving its step every 20 steps and on a checkpoint notice (or
SIGTERM); on a notice that stops the program it saves and exits 0. After a
resume its first step is the saved step + 1, and it prints
`items PRESENT ACKED` (the table's size against what was acknowledged
before the notice).

Usage: resume_learner.py [--plain STATE_DIR] [--items N] [--pause S]
"""
import argparse
import json
import os
import signal
import sys
import time

parser = argparse.ArgumentParser()
parser.add_argument("--plain", metavar="STATE_DIR", help="run without slipway (the peer)")
parser.add_argument("--items", type=int, default=100_000)
parser.add_argument("--pause", type=float, default=0.02)
args = parser.parse_args()

if args.plain:
    state_dir, resume = args.plain, int(os.environ.get("SLURM_RESTART_COUNT", "0"))
else:
    import slipway as sw
    from slipway import replay
    state_dir, resume = sw.state_dir(), sw.resume_count()
STATE = os.path.join(state_dir, "learner.json")


def load():
    try:
        with open(STATE, encoding="ascii") as f:
            return json.load(f)
    except (OSError, ValueError):
        return {"step": 0, "acked": 0}


def save(state):
    tmp = STATE + ".tmp"
    with open(tmp, "w", encoding="ascii") as f:
        json.dump(state, f)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, STATE)


state = load()
stopping = False


def on_notice(notice):
    global stopping
    save(state)
    if notice.stop:
        stopping = True


if args.plain:
    def on_term(signum, frame):
        save(state)
        sys.exit(0)
    signal.signal(signal.SIGTERM, on_term)
else:
    sw.on_checkpoint(on_notice)
    client = replay.Client("replay")
    if state["step"] == 0 and state["acked"] == 0:
        batch = [b"x" * 64] * 1000
        acked = 0
        for _ in range(args.items // len(batch)):
            acked += len(client.insert_many(batch, {"experience": 1.0}, timeout=60))
        state["acked"] = acked
        save(state)
        print(f"filled {acked} {time.time():.6f}", flush=True)
    elif resume > 0:
        present = client.server_info(timeout=60)["experience"].size
        print(f"items {present} {state['acked']}", flush=True)

while not stopping:
    state["step"] += 1
    print(f"step {state['step']} {resume} {time.time():.6f}", flush=True)
    if state["step"] % 20 == 0:
        save(state)
    time.sleep(args.pause)
save(state)
