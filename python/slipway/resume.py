"""Where a task stands across resumes of its program (issue 28;
docs/python.md, "Checkpoints and resumes").

Under Slurm a requeued job resumes the same run, and `slipway run --resume`
resumes a stopped one: every task then gets SLIPWAY_RESUME (0 at the first
start, +1 per resume) and SLIPWAY_STATE_DIR, a directory of the run for its
node's own checkpoints that survives resumes (made by the launcher, 0700,
shared by the node's replicas). Outside slipway neither is set.
"""

import os

__all__ = ["resume_count", "state_dir"]


def resume_count():
    """How many times this program was resumed (SLIPWAY_RESUME): 0 at the
    first start, outside slipway, and when the variable is not a count."""
    text = os.environ.get("SLIPWAY_RESUME", "").strip()
    return int(text) if text.isdigit() and text.isascii() else 0


def state_dir():
    """The node's state directory (SLIPWAY_STATE_DIR), or None outside
    slipway: save what the task needs to resume there, atomically (write a
    temporary file beside it, then os.replace())."""
    return os.environ.get("SLIPWAY_STATE_DIR") or None
