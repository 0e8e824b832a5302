"""A worker of the pool over work table "jobs" (replay_python.toml): serves
"square" and "crash_once" until it is stopped (it is a daemon)."""
import os

import replay_path  # noqa: F401  (python/ on sys.path)
from slipway import replay


def square(x):
    return x * x


def crash_once(marker):
    """Kills this worker mid-lease the first time (no marker file yet)."""
    if not os.path.exists(marker):
        with open(marker, "w") as f:
            f.write(os.environ.get("SLIPWAY_REPLICA", "?"))
        print("crash_once: exiting mid-lease", flush=True)
        os._exit(3)
    return "done after a crash, attempt %s" % os.environ.get("SLIPWAY_ATTEMPT")


pool = replay.Pool("replay", "jobs", worker_node="worker")
print("serving", flush=True)
ran = pool.serve({"square": square, "crash_once": crash_once})
print("served %d tasks" % ran, flush=True)
