#!/usr/bin/python3
"""The rounds of `slipway-bench resume` on a running Slurm test cluster:
slipway and plain srun, alternating, each running the same learner
(resume_learner.py) in a batch job that `scontrol requeue` requeues mid-run.

  slipway: `slipway sbatch --requeue` of a program of a replay node and the
           learner, which fills the replay with ITEMS items first. Timed:
           notice_to_stopped, from `scontrol requeue` to the run's
           outcome.json written (every task ended: the learner saved on its
           notice, the shard wrote its checkpoint); requeue_to_step, from
           the requeued job seen running to the learner's first step after
           the resume; items_lost, the items acknowledged before the notice
           missing from the replay after the resume.
  srun:    the learner alone under `srun` in a plain batch script that
           resumes from its own checkpoint (SIGTERM saves, the requeued job
           reloads: submitit's and Lightning's way). Timed: requeue_to_step
           the same way.

A requeued job pends until its BeginTime, which Slurm sets past the
credential expiry (cred_expire + 1 s: a job started earlier on the same host
is killed, "Job credential revoked"); both wait for it, and the clock starts
when the job is seen running again. Prints each measure as it goes and, last,
one line of medians: `resume: notice_to_stopped_ms=... requeue_to_step_ms=...
items_lost=... srun_requeue_to_step_ms=... items=...`.

Usage: resume_rounds.py SLIPWAY LEARNER WORK_DIR ROUNDS ITEMS
"""
import os
import re
import statistics
import subprocess
import sys
import time

SLIPWAY, LEARNER, WORK, ROUNDS, ITEMS = sys.argv[1:6]
ROUNDS, ITEMS = int(ROUNDS), int(ITEMS)
PY = "/usr/bin/python3"
LIMIT = 180  # seconds any one wait may take
RUNS = os.environ["SLIPWAY_RUN_ROOT"]


def wait(what, probe, limit=LIMIT, every=0.02):
    deadline = time.time() + limit
    while time.time() < deadline:
        got = probe()
        if got:
            return got
        time.sleep(every)
    raise RuntimeError(f"resume: no {what} within {limit} s (see {WORK})")


def job_state(job):
    out = subprocess.run(["squeue", "-h", "-j", job, "-o", "%T"], capture_output=True, text=True).stdout
    return out.strip()


def lines(path):
    try:
        with open(path, encoding="ascii", errors="replace") as f:
            return f.read().splitlines()
    except FileNotFoundError:
        return []


def first_step(path, resume):
    for line in lines(path):
        parts = line.split()
        if len(parts) == 4 and parts[0] == "step" and parts[2] == str(resume):
            return float(parts[3])
    return None


def steps_at(path, resume):
    return sum(1 for line in lines(path) if line.startswith("step ") and line.split()[2:3] == [str(resume)])


def requeue_and_restart(job):
    """scontrol requeue JOB; returns (when it was asked, when the job ran again)."""
    asked = time.time()
    subprocess.run(["scontrol", "requeue", job], check=True)
    wait("requeued job pending", lambda: job_state(job) == "PENDING")
    running = wait("requeued job running", lambda: job_state(job) == "RUNNING" and time.time())
    return asked, running


def cancel(job):
    subprocess.run(["scancel", job])
    wait("job gone", lambda: job_state(job) == "", every=0.2)


def slipway_round(n):
    topology = os.path.join(WORK, f"resume-{n}.toml")
    with open(topology, "w", encoding="ascii") as f:
        f.write(f"""[program]
name = "resume-bench-{n}"

[node.replay]
type = "replay"
[node.replay.tables.experience]
sampler = "uniform"
remover = "fifo"
max_size = {ITEMS * 2}
[node.replay.checkpoint]
every = "1h"

[node.learner]
command = ["{PY}", "{LEARNER}", "--items", "{ITEMS}"]
handles = ["replay"]
""")
    got = subprocess.run([SLIPWAY, "sbatch", "--requeue", "--sbatch-arg=--partition=cpu",
                          "--sbatch-arg=--nodes=1", f"--sbatch-arg=--output={WORK}/slipway-{n}.out",
                          "--sbatch-arg=--open-mode=append", topology],
                         capture_output=True, text=True, cwd=WORK)
    m = re.search(r"(\d+)\s*$", got.stdout.strip())
    if got.returncode != 0 or not m:
        raise RuntimeError(f"slipway sbatch failed: {got.stdout}{got.stderr}")
    job = m.group(1)
    run = os.path.join(RUNS, f"resume-bench-{n}.job-{job}")
    log = os.path.join(run, "logs", "learner.0.log")
    try:
        wait("learner's steps", lambda: steps_at(log, 0) >= 50)
        asked, running = requeue_and_restart(job)
        outcome_file = os.path.join(run, "outcome.json")
        # How the run's first start ended (docs/runs.md): written once every task ended.
        stopped = os.stat(outcome_file).st_mtime if os.path.exists(outcome_file) else None
        if stopped is None or stopped < asked:
            raise RuntimeError(f"the first start of run {run} left no outcome.json")
        step = wait("learner's first step after the resume", lambda: first_step(log, 1))
        items = wait("items line", lambda: next((l.split() for l in lines(log) if l.startswith("items ")), None))
        present, acked = int(items[1]), int(items[2])
        return (stopped - asked) * 1000, (step - running) * 1000, max(0, acked - present)
    finally:
        cancel(job)


def srun_round(n):
    state = os.path.join(WORK, f"plain-{n}")
    os.makedirs(state, exist_ok=True)
    out = os.path.join(WORK, f"plain-{n}.out")
    script = os.path.join(WORK, f"plain-{n}.sh")
    with open(script, "w", encoding="ascii") as f:
        f.write(f"#!/bin/bash\nexec srun -n1 {PY} {LEARNER} --plain {state}\n")
    got = subprocess.run(["sbatch", "--parsable", "--requeue", "--partition=cpu", "--nodes=1",
                          f"--output={out}", "--open-mode=append", script], capture_output=True, text=True)
    job = got.stdout.strip().split(";")[0]
    if got.returncode != 0 or not job.isdigit():
        raise RuntimeError(f"sbatch failed: {got.stdout}{got.stderr}")
    try:
        wait("plain learner's steps", lambda: steps_at(out, 0) >= 50)
        _, running = requeue_and_restart(job)
        step = wait("plain learner's first step after the requeue", lambda: first_step(out, 1))
        return (step - running) * 1000
    finally:
        cancel(job)


stopped, to_step, lost, plain = [], [], [], []
for n in range(ROUNDS):
    a, b, c = slipway_round(n)
    stopped.append(a)
    to_step.append(b)
    lost.append(c)
    print(f"resume: round {n} slipway notice_to_stopped_ms={a:.0f} requeue_to_step_ms={b:.0f} items_lost={c}",
          flush=True)
    d = srun_round(n)
    plain.append(d)
    print(f"resume: round {n} srun requeue_to_step_ms={d:.0f}", flush=True)
print(f"resume: notice_to_stopped_ms={statistics.median(stopped):.0f} "
      f"requeue_to_step_ms={statistics.median(to_step):.0f} items_lost={max(lost)} "
      f"srun_requeue_to_step_ms={statistics.median(plain):.0f} "
      f"step_ratio={statistics.median(to_step) / statistics.median(plain):.2f} items={ITEMS}")
