"""Drives every call of slipway.replay against the real service
(replay_python.toml) and checks what comes back; ends with "driver: ok"."""
import os
import pickle
import signal
import tempfile
import time

import replay_path  # noqa: F401  (python/ on sys.path)
from slipway import replay


def check(condition, message):
    if not condition:
        raise SystemExit("driver: FAILED: " + message)


def shard_pid(replica):
    """The pid of this program's replay shard `replica` (its environment
    holds this task's SLIPWAY_TOKEN)."""
    token = os.environ["SLIPWAY_TOKEN"].encode()
    wanted = {b"SLIPWAY_NODE=replay", b"SLIPWAY_REPLICA=%d" % replica, b"SLIPWAY_TOKEN=" + token}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open("/proc/%s/environ" % entry, "rb") as f:
                env = set(f.read().split(b"\0"))
            with open("/proc/%s/cmdline" % entry, "rb") as f:
                program = f.read().split(b"\0")[0]
        except OSError:
            continue
        if wanted <= env and program.endswith(b"slipway-replay"):
            return int(entry)
    return None


rb = replay.Client("replay")
check(len(rb.shards) == 2, "resolved %d shards, not 2" % len(rb.shards))

# info: both shards, every table with the kind the topology gives.
info = rb.info(timeout=30)
check([s.shard for s in info] == [0, 1], "shards %s" % [s.shard for s in info])
tables = info[0].tables
check(tables["experience"].kind == "table" and tables["experience"].sampler == "prioritized",
      "experience is %s" % (tables["experience"],))
check(tables["tasks"].kind == "queue" and tables["jobs"].kind == "work", "kinds %s" % tables)
check(tables["jobs"].lease_ms == 30000, "lease of jobs: %s" % tables["jobs"].lease_ms)
check(tables["ratio"].samples_per_insert == 2.0, "ratio limiter %s" % (tables["ratio"],))

# insert, insert_many and the writer: keys carry their shard.
key = rb.insert(b"first", priorities={"experience": 1.0})
keys = rb.insert_many([b"a", b"b", b"c"], priorities={"experience": [1.0, 2.0, 3.0]})
with rb.writer("experience", max_in_flight=4, batch_size=2) as writer:
    for i in range(20):
        writer.append(pickle.dumps(("t", i)), priority=1.0 + i)
check(writer.keys_written == 20, "the writer wrote %d items" % writer.keys_written)
check(len({k >> 48 for k in [key] + keys}) == 2, "inserts used one shard only: %s" % ([key] + keys))
check(rb.size("experience") == 24, "experience holds %d items, not 24" % rb.size("experience"))

# server_info: Reverb's {table name: info}, summed over the two shards.
server = rb.server_info(timeout=30)
check(set(server) == {"experience", "ratio", "tasks", "jobs"}, "server_info tables %s" % sorted(server))
check(server["experience"].current_size == 24 and server["experience"].max_size == 2000,
      "server_info of experience: %s" % (server["experience"],))

# sample: exactly n, every field filled.
batch = rb.sample("experience", n=8, timeout=30)
check(len(batch) == 8, "sampled %d, not 8" % len(batch))
for s in batch:
    check(0 < s.probability <= 1 and s.table_size >= 2 and s.times_sampled >= 1 and s.data,
          "a sample: %s" % (s,))
batches = rb.sampler("experience", batch_size=5, prefetch=3, timeout=30)
for _ in range(3):
    check(len(next(batches)) == 5, "a sampler batch is not 5 long")
batches.close()

# update_priorities and delete route each key to its shard.
check(rb.update_priorities("experience", {k: 0.5 for k in keys}) == 3, "priorities not updated")
check(rb.delete("experience", [key]) == 1, "the first key was not deleted")
check(rb.size("experience") == 23, "after delete: %d items" % rb.size("experience"))

# A sample the rate limiter holds back times out; an insert frees it.
try:
    rb.sample("ratio", n=1, timeout=0.5)
    check(False, "a sample of the empty ratio table did not time out")
except replay.ReplayTimeout:
    pass

# Queue: FIFO per shard, Empty when nothing is there.
q = replay.Queue("replay", "tasks")
for i in range(6):
    q.put({"n": i})
got = sorted(q.get(timeout=10)["n"] for _ in range(6))
check(got == list(range(6)), "queue gave %s" % got)
try:
    q.get(timeout=0.3)
    check(False, "an empty queue's get did not raise Empty")
except replay.Empty:
    pass

# A sampler on a queue prefetches nothing: closed after one batch, it has
# taken out only that batch.
for i in range(12):
    rb.insert(b"job%d" % i, priorities={"tasks": 1.0})
batches = rb.sampler("tasks", batch_size=4, prefetch=4, timeout=30)
first = next(batches)
batches.close()
check(len(first) == 4, "a queue sampler's batch has %d items" % len(first))
check(rb.size("tasks") == 8, "a closed queue sampler left %d items, not 8" % rb.size("tasks"))
check(len(rb.sample("tasks", n=8, timeout=10)) == 8, "the rest of the queue was not there")
# A sample of several items that times out hands over what it had taken.
rb.insert(b"last", priorities={"tasks": 1.0})
try:
    rb.sample("tasks", n=2, timeout=0.5)
    check(False, "a sample of 2 from a queue of 1 did not time out")
except replay.ReplayTimeout as error:
    check([s.data for s in error.samples] == [b"last"], "the timeout carried %r" % error.samples)
check(rb.size("tasks") == 0, "the queue kept %d items" % rb.size("tasks"))

# Errors of the service reach the caller with its message.
try:
    rb.sample("no_such_table", n=1, timeout=5)
    check(False, "sampling an unknown table did not fail")
except replay.ReplayError as error:
    check(error.code == "invalid", "unknown table gave %s: %s" % (error.code, error))

# Pool: map and imap_unordered over two workers; one task kills its worker
# mid-lease and runs again on a worker that leases it afterwards.
pool = replay.Pool("replay", "jobs", worker_node="worker")
check(pool.map("square", range(20), timeout=60) == [x * x for x in range(20)], "pool.map")
check(sorted(pool.imap_unordered("square", range(10), timeout=60)) == [x * x for x in range(10)],
      "pool.imap_unordered")
marker = os.path.join(tempfile.mkdtemp(prefix="replay-python-"), "crashed")
result = pool.map("crash_once", [marker], timeout=90)
check(os.path.exists(marker) and result[0].startswith("done after a crash"), "crash_once gave %s" % result)
print("driver: the pool re-ran a task whose worker died: %s" % result[0], flush=True)

# A shard killed after a checkpoint comes back with its items; the calls
# that meet the restart are sent again.
paths = rb.checkpoint(timeout=30)
check(len(paths) == 2 and all(paths), "checkpoint paths %s" % paths)
before = rb.info(timeout=30)[1].tables["experience"].size
pid = shard_pid(1)
check(pid is not None, "no process of shard 1 found")
os.kill(pid, signal.SIGKILL)
print("driver: killed shard 1 (pid %d) holding %d items" % (pid, before), flush=True)
deadline = time.monotonic() + 60
while True:
    info = rb.info(timeout=60)
    if info[1].server_attempt >= 1:
        break
    check(time.monotonic() < deadline, "shard 1 was not relaunched")
    time.sleep(0.2)
after = info[1].tables["experience"].size
check(after == before, "shard 1 came back with %d items, not %d" % (after, before))
check(len(rb.sample("experience", n=10, timeout=30)) == 10, "sampling after the restart")
rb.reset("experience")
check(rb.size("experience") == 0, "reset left items")
print("driver: ok", flush=True)
