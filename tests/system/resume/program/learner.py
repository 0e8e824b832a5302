"""The learner of the resume system tests (tests/system/resume): samples the
replay node's prioritized table "experience", one step per batch, and saves
its step to learner.json in its state directory ($SLIPWAY_STATE_DIR) every
5 steps and at each checkpoint notice; at start it reloads that file. Until
the run has been resumed --resumes times it runs until a stop notice; then
it takes --more steps and exits 0. Its lines, which the tests read:

    learner: start resume R array A step S     (S: the step it reloaded)
    learner: saved step S                      (each save)
    learner: first step S                      (the first step of this start)
    learner: stopping at step S                (a stop notice)
    learner: done at step S
"""
import argparse
import json
import os
import sys
import threading
import time

import slipway as sw
from slipway import replay

parser = argparse.ArgumentParser()
parser.add_argument("--resumes", type=int, default=1)
parser.add_argument("--more", type=int, default=20)
args = parser.parse_args()

STATE = os.path.join(sw.state_dir(), "learner.json")


def load():
    if not os.path.exists(STATE):
        return 0
    with open(STATE) as f:
        return int(json.load(f)["step"])


step = load()
print(f"learner: start resume {sw.resume_count()} array {os.environ.get('SLIPWAY_ARRAY_TASK', '-')} "
      f"step {step}", flush=True)
stop = threading.Event()


def save(at):
    sw.save_state("learner.json", lambda f: f.write(json.dumps({"step": at}).encode()))
    print(f"learner: saved step {at}", flush=True)


@sw.on_checkpoint
def on_notice(notice):
    save(step)
    if notice.stop:
        stop.set()


rb = replay.Client("replay")
target = step + args.more if sw.resume_count() >= args.resumes else None
first = True
while not stop.is_set():
    rb.sample("experience", n=4, timeout=120)
    step += 1
    if first:
        print(f"learner: first step {step}", flush=True)
        first = False
    if step % 5 == 0:
        save(step)
    if target is not None and step >= target:
        save(step)
        print(f"learner: done at step {step}", flush=True)
        sys.exit(0)
    time.sleep(0.1)
print(f"learner: stopping at step {step}", flush=True)
