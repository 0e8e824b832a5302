"""A Pool's caller that maps and exits at once, leaving the pool open
(pool_exit.toml): its endpoint must be closed before the interpreter
finalizes, or a handler still replying then aborts the process."""
import replay_path  # noqa: F401  (python/ on sys.path)
from slipway import replay

pool = replay.Pool("replay", "jobs", worker_node="worker")
print("exit_driver: %s" % pool.map("square", range(8), timeout=60), flush=True)
