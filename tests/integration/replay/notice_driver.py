"""The client task of notice_checkpoint.sh, with slipway's Python replay client:
    notice_driver.py fill NOTICE_FILE   inserts 300 items into "experience" and 20
        into the "episodes" queue (each acknowledged), writes a checkpoint notice
        to the shard's notice file as the task agent does, waits until the shard
        says it has written a checkpoint, then inserts 50 more items (in no
        notice's checkpoint; the final one at stop must have them)
    notice_driver.py count              prints the tables' sizes
"""
import json
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "python"))
from slipway import replay  # noqa: E402


def fail(message):
    raise SystemExit("driver: FAILED: " + message)


def insert(rb, count, start):
    with rb.writer("experience", max_in_flight=4, batch_size=16) as writer:
        for i in range(start, start + count):
            writer.append(b"item %d" % i, priority=1.0 + i)
        writer.flush()   # every item acknowledged
        if writer.keys_written != count:
            fail("%d keys for %d items" % (writer.keys_written, count))


rb = replay.Client("replay")
if sys.argv[1] == "count":
    tables = rb.server_info(timeout=30)
    print("driver: experience %d episodes %d" % (tables["experience"].size, tables["episodes"].size), flush=True)
    sys.exit(0)

notice_file = sys.argv[2]
insert(rb, 300, 0)
episodes = replay.Queue("replay", "episodes")
for episode in range(20):
    episodes.put({"episode": episode})
if rb.info(timeout=30)[0].checkpoint_path:
    fail("the shard has a checkpoint before any notice")
os.makedirs(os.path.dirname(notice_file), exist_ok=True)
notice = {"seq": 1, "reason": "test notice", "deadline_unix_ms": int(time.time() * 1000) + 20000, "stop": False}
with open(notice_file + ".tmp", "w") as f:
    f.write(json.dumps(notice))
os.replace(notice_file + ".tmp", notice_file)
deadline = time.monotonic() + 20
while not rb.info(timeout=30)[0].checkpoint_path:
    if time.monotonic() > deadline:
        fail("no checkpoint 20 s after the notice")
    time.sleep(0.05)
print("driver: the shard wrote %s" % rb.info(timeout=30)[0].checkpoint_path, flush=True)
insert(rb, 50, 300)
print("driver: ok", flush=True)
