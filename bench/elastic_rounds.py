#!/usr/bin/python3
"""The rounds of `slipway-bench elastic` on a running Slurm test cluster:
slipway and torchrun (c10d rendezvous), alternating, on the same trainer
(elastic_trainer.py) with one rank per host on three hosts.

  loss: both run a world of 3; the trainer's processes on fn3 (and the
        agent there: slipway-exec, or torchrun's) are killed; timed from the
        kill to the first step of the re-formed world of 2.
  grow: both run a world of 2 (slipway: replicas = "2:3" with grow =
        "manual"; torchrun: agents on fn1 and fn2 with --nnodes=2:3); then
        the third host arrives (slipway: `slipway scale trainer 3`; torchrun:
        its agent on fn3 starts); timed from then to the first step of the
        world of 3.

Prints each measure as it goes and, last, one line of medians in ms:
`elastic: loss_to_step_ms=... torchrun_loss_to_step_ms=... loss_speedup=...
grow_to_step_ms=... torchrun_grow_to_step_ms=... grow_speedup=...`.

Usage: elastic_rounds.py SLIPWAY TRAINER WORK_DIR CLUSTER_DIR ROUNDS
"""
import os
import re
import signal
import statistics
import subprocess
import sys
import time

SLIPWAY, TRAINER, WORK, CLUSTER, ROUNDS = sys.argv[1:6]
ROUNDS = int(ROUNDS)
PY = "/usr/bin/python3"
LIMIT = 240  # seconds any one wait may take


def net_id():
    with open(os.path.join(CLUSTER, "env.sh"), encoding="utf-8") as f:
        m = re.search(r"SLIPWAY_CLUSTER_NET_ID=['\"]?(\d+)", f.read())
    if not m:
        sys.exit("elastic: no SLIPWAY_CLUSTER_NET_ID in the cluster's env.sh")
    return m.group(1)


NS = f"sw{net_id()}-fn3"


def steps(out):
    """[(world, rank, time)] of the trainer's lines so far."""
    try:
        with open(out, encoding="ascii") as f:
            lines = f.read().splitlines()
    except FileNotFoundError:
        return []
    got = []
    for line in lines:
        parts = line.split()
        if len(parts) == 7 and parts[0] == "step":
            got.append((int(parts[3]), int(parts[5]), float(parts[6])))
    return got


def first_step(out, world, after, ranks, procs=()):
    """The time of the first step of a world of `world` after `after` once
    `ranks` of its ranks have stepped (the world formed whole). Fails at
    once when one of `procs` (the launchers that must keep running) ended."""
    deadline = time.time() + LIMIT
    while time.time() < deadline:
        for p in procs:
            if p.poll() is not None:
                raise RuntimeError(f"{' '.join(p.args[:6])}... exited {p.returncode} (see {WORK})")
        seen = [(r, t) for w, r, t in steps(out) if w == world and t > after]
        if len({r for r, _ in seen}) >= ranks:
            return min(t for _, t in seen)
        time.sleep(0.05)
    raise RuntimeError(f"no world of {world} stepped within {LIMIT} s (see {out})")


def kill_fn3(words):
    """SIGKILL the processes on fn3 whose command line holds one of `words`."""
    pids = subprocess.run(["ip", "netns", "pids", NS], capture_output=True, text=True).stdout.split()
    for pid in pids:
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                cmd = f.read().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if any(w in cmd for w in words) and "slurmstepd" not in cmd:
            try:
                os.kill(int(pid), signal.SIGKILL)
            except ProcessLookupError:
                pass


def topology(name, grow):
    path = os.path.join(WORK, name + ".toml")
    with open(path, "w", encoding="ascii") as f:
        f.write(f"""[program]
name = "{name}"
[node.trainer]
command = ["{PY}", "{TRAINER}", "{WORK}/{name}.steps"]
replicas = "2:3"
cpus = 3
framework = "torch"
max_retries = 1
env = {{ OMP_NUM_THREADS = "1" }}
elastic = {{ grow = "{grow}", settle = 0 }}
""")
    return path


def stop(procs, job_name):
    subprocess.run(["scancel", "--name", job_name], capture_output=True)
    for p in procs:
        try:
            p.send_signal(signal.SIGTERM)
            p.wait(timeout=20)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
    kill_fn3([TRAINER, "slipway-exec", "torch.distributed.run"])
    # Until the job's hosts are idle again.
    deadline = time.time() + 60
    while time.time() < deadline:
        if not subprocess.run(["squeue", "-h", "-n", job_name], capture_output=True, text=True).stdout.strip():
            break
        time.sleep(0.2)
    time.sleep(1)


def slipway_run(name, grow):
    out = os.path.join(WORK, name + ".steps")
    if os.path.exists(out):
        os.remove(out)
    log = open(os.path.join(WORK, name + ".log"), "w", encoding="utf-8")
    proc = subprocess.Popen(["srun", "-N3", "-p", "cpu", f"--program={topology(name, grow)}"],
                            cwd=WORK, stdout=log, stderr=subprocess.STDOUT)
    return proc, out


def slipway_loss(r):
    name = f"bench-loss-{r}"
    proc, out = slipway_run(name, "auto")
    try:
        first_step(out, 3, 0, 3, [proc])
        time.sleep(1)
        kill_at = time.time()
        kill_fn3([TRAINER, "slipway-exec"])
        return first_step(out, 2, kill_at, 2, [proc]) - kill_at
    finally:
        stop([proc], name)


def slipway_grow(r):
    name = f"bench-grow-{r}"
    proc, out = slipway_run(name, "manual")
    try:
        first_step(out, 2, 0, 2, [proc])
        time.sleep(1)
        asked_at = time.time()
        subprocess.run([SLIPWAY, "scale", "trainer", "3", "--program", name], check=True,
                       capture_output=True)
        return first_step(out, 3, asked_at, 3, [proc]) - asked_at
    finally:
        stop([proc], name)


def torchrun_agent(job, host, out, name, logs):
    log = open(os.path.join(WORK, f"{name}-{host}.log"), "w", encoding="utf-8")
    return subprocess.Popen(
        ["srun", f"--jobid={job}", "-w", host, "-N1", "-n1", "--exact", "-c3",
         PY, "-m", "torch.distributed.run", "--nnodes=2:3", "--nproc_per_node=1",
         "--max_restarts=10", "--rdzv_backend=c10d", "--rdzv_endpoint=fn1:29400",
         f"--rdzv_id={name}", "--redirects", "1", "--tee", "1", "--log_dir", logs, TRAINER, out],
        cwd=WORK, stdout=log, stderr=subprocess.STDOUT, env={**os.environ, "OMP_NUM_THREADS": "1"})


def torchrun_job(name):
    got = subprocess.run(["salloc", "--no-shell", "-N3", "-n3", "-c3", "-p", "cpu", "--no-kill", "-J", name],
                         capture_output=True, text=True, timeout=60)
    m = re.search(r"Granted job allocation (\d+)", got.stderr + got.stdout)
    if not m:
        raise RuntimeError("salloc --no-shell gave no job: " + got.stderr)
    return m.group(1)


def torchrun_scenario(r, kind):
    name = f"torchrun-{kind}-{r}"
    out = os.path.join(WORK, name + ".steps")
    if os.path.exists(out):
        os.remove(out)
    logs = os.path.join(WORK, name + "-logs")
    job = torchrun_job(name)
    hosts = ["fn1", "fn2", "fn3"] if kind == "loss" else ["fn1", "fn2"]
    procs = [torchrun_agent(job, h, out, name, logs) for h in hosts]
    try:
        first_step(out, len(hosts), 0, len(hosts), procs)
        time.sleep(1)
        at = time.time()
        if kind == "loss":
            kill_fn3([TRAINER, "torch.distributed.run"])
            return first_step(out, 2, at, 2, procs[:2]) - at
        procs.append(torchrun_agent(job, "fn3", out, name, logs))
        return first_step(out, 3, at, 3, procs) - at
    finally:
        stop(procs, name)


def main():
    os.makedirs(WORK, exist_ok=True)
    measures = {"loss": [], "torchrun_loss": [], "grow": [], "torchrun_grow": []}
    for r in range(ROUNDS):
        for key, run in (("loss", lambda: slipway_loss(r)),
                         ("torchrun_loss", lambda: torchrun_scenario(r, "loss")),
                         ("grow", lambda: slipway_grow(r)),
                         ("torchrun_grow", lambda: torchrun_scenario(r, "grow"))):
            seconds = run()
            measures[key].append(seconds * 1000)
            print(f"elastic: round {r + 1} {key} {seconds * 1000:.0f} ms", flush=True)
    med = {k: statistics.median(v) for k, v in measures.items()}
    print(f"elastic: loss_to_step_ms={med['loss']:.0f} torchrun_loss_to_step_ms={med['torchrun_loss']:.0f} "
          f"loss_speedup={med['torchrun_loss'] / med['loss']:.1f} grow_to_step_ms={med['grow']:.0f} "
          f"torchrun_grow_to_step_ms={med['torchrun_grow']:.0f} "
          f"grow_speedup={med['torchrun_grow'] / med['grow']:.1f}", flush=True)


if __name__ == "__main__":
    try:
        main()
    except Exception as e:  # a failed round is an error line, never a number
        print(f"elastic: error={type(e).__name__}: {e}", flush=True)
        sys.exit(1)
