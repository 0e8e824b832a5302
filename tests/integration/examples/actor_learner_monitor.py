"""Watches the replay node of the actor_learner example for
integration:examples:actor_learner_sigterm_resume (a node of the test's
copy of examples/actor_learner.toml, with notice_signal = "SIGUSR2").

First start (SLIPWAY_RESUME 0): it waits for a checkpoint notice, then
says what the node holds (`monitor: at notice SEQ: experience E, episodes
Q`), puts a marker on the "episodes" queue (signed with the program's
secret, as every queue item is), stays 2 s (the shards checkpoint for
the notice meanwhile) and exits 0.

After a resume: before anything else touches the replay node (the test's
learner and actors wait for the file `counted.RESUME` it writes in its
state directory), it says what the node holds (`monitor: resume R:
experience E, episodes Q`), then takes every item of the queue and says
how many it read, whether its marker was among them and how many it could
not read (`monitor: read N episode summaries, marker M, unreadable U`).
"""
import os
import signal
import threading
import time

import slipway as sw
from slipway import replay

MARKER = {"actor": 0, "episode": -1, "version": -1, "mean_error": 0.0, "marker": "monitor"}

rb = replay.Client("replay")
episodes = replay.Queue("replay", "episodes")


def sizes():
    tables = rb.server_info(timeout=30)
    return tables["experience"].size, tables["episodes"].size


resume = sw.resume_count()
if resume == 0:
    stop = threading.Event()
    seen = []

    def heard(notice):
        if notice.stop:
            seen.append(notice)
            stop.set()

    # The notice comes with SIGUSR2 (notice_signal) and in the notice file,
    # which on_checkpoint's watcher reads.
    signal.signal(signal.SIGUSR2, lambda signum, frame: None)
    sw.on_checkpoint(heard)
    stop.wait()
    experience, queued = sizes()
    print(f"monitor: at notice {seen[0].seq}: experience {experience}, episodes {queued}", flush=True)
    episodes.put(MARKER, timeout=30)
    # The shards hear the notice by their own look at their notice files
    # (every 100 ms) and are stopped once no task but them runs: this task
    # stays a while so that a loaded machine does not stop them first.
    time.sleep(2)
else:
    experience, queued = sizes()
    print(f"monitor: resume {resume}: experience {experience}, episodes {queued}", flush=True)
    read = marker = unreadable = 0
    while True:
        try:
            item = episodes.get(timeout=0)
        except replay.Empty:
            break
        except PermissionError as error:  # signed with another secret
            print(f"monitor: unreadable episode summary: {error}", flush=True)
            unreadable += 1
            continue
        read += 1
        marker += item == MARKER
    print(f"monitor: read {read} episode summaries, marker {marker}, unreadable {unreadable}", flush=True)
    with open(os.path.join(sw.state_dir(), f"counted.{resume}"), "w"):
        pass
