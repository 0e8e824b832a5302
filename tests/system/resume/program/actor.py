"""The actor of the resume system tests (tests/system/resume): inserts items
b"item-N" (N = 0, 1, 2, ...) into the replay node's tables "experience"
(prioritized) and "acked" (a queue) at once, and appends N to "acked" in its
state directory ($SLIPWAY_STATE_DIR) once the replay acknowledged it; it
stops inserting at a stop notice. At a resume it first takes every item out
of the queue "acked" and checks that each N acknowledged since the last such
check (before the notice) is there, and that the table holds at least as
many items as were ever acknowledged; then it appends "checked" to the file:

    actor: start resume R array A
    actor: notice SEQ after N items acknowledged
    actor: resume R: N items acknowledged before the notice, M missing, table T of ALL
    actor: missing N1 N2 ...                   (only when some are)

Until the run has been resumed --resumes times it inserts until a stop
notice (about 20 items a second); then it inserts --more and exits 0.
"""
import argparse
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

ACKED = os.path.join(sw.state_dir(), "acked")
print(f"actor: start resume {sw.resume_count()} array {os.environ.get('SLIPWAY_ARRAY_TASK', '-')}", flush=True)
stop = threading.Event()
rb = replay.Client("replay")


def acknowledged():
    """Every N acknowledged, and those since the last check."""
    every, unchecked = [], []
    if os.path.exists(ACKED):
        with open(ACKED) as f:
            for line in f:
                if line.strip() == "checked":
                    unchecked = []
                elif line.strip():
                    every.append(int(line))
                    unchecked.append(int(line))
    return every, unchecked


done, unchecked = acknowledged()
if sw.resume_count() > 0:
    present = set()
    while True:
        try:
            batch = rb.sample("acked", n=1000, timeout=0)
        except replay.ReplayTimeout as timeout:
            batch, last = timeout.samples, True
        else:
            last = False
        present.update(int(s.data.split(b"-")[1]) for s in batch)
        if last:
            break
    missing = sorted(set(unchecked) - present)
    table = rb.size("experience")
    print(f"actor: resume {sw.resume_count()}: {len(unchecked)} items acknowledged before the notice, "
          f"{len(missing)} missing, table {table} of {len(done)}", flush=True)
    if missing:
        print("actor: missing " + " ".join(map(str, missing[:50])), flush=True)
    with open(ACKED, "a") as log:
        log.write("checked\n")


@sw.on_checkpoint
def on_notice(notice):
    if notice.stop:
        stop.set()
        print(f"actor: notice {notice.seq} after {len(done)} items acknowledged", flush=True)


target = len(done) + args.more if sw.resume_count() >= args.resumes else None
n = max(done, default=-1) + 1
with open(ACKED, "a") as log:
    while not stop.is_set():
        rb.insert(b"item-%d" % n, priorities={"experience": 1.0, "acked": 1.0}, timeout=60)
        log.write(f"{n}\n")
        log.flush()
        os.fsync(log.fileno())
        done.append(n)
        n += 1
        if target is not None and len(done) >= target:
            print(f"actor: done after {len(done)} items", flush=True)
            sys.exit(0)
        time.sleep(0.05)
