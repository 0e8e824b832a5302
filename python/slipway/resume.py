"""Where a task stands across resumes of its program (issue 28;
docs/python.md, "Checkpoints and resumes").

Under Slurm a requeued job resumes the same run, and `slipway run --resume`
resumes a stopped one: every task then gets SLIPWAY_RESUME (0 at the first
start, +1 per resume) and SLIPWAY_STATE_DIR, a directory of the run for its
node's own checkpoints that survives resumes (made by the launcher, 0700,
shared by the node's replicas). Outside slipway neither is set.
save_state() writes a file there atomically.
"""

import os
import tempfile
from typing import BinaryIO, Callable, Optional

__all__ = ["resume_count", "state_dir", "save_state"]


def resume_count() -> int:
    """How many times this program was resumed (SLIPWAY_RESUME): 0 at the
    first start, outside slipway, and when the variable is not a count."""
    text = os.environ.get("SLIPWAY_RESUME", "").strip()
    return int(text) if text.isdigit() and text.isascii() else 0


def state_dir() -> Optional[str]:
    """The node's state directory (SLIPWAY_STATE_DIR), or None outside
    slipway: save what the task needs to resume there, atomically (write a
    temporary file beside it, then os.replace(): save_state() does)."""
    return os.environ.get("SLIPWAY_STATE_DIR") or None


def save_state(name: str, write: Callable[[BinaryIO], object]) -> Optional[str]:

    """Saves the file `name` of the state directory atomically: write(f)
    writes its content to f, a new binary file beside it, which is flushed
    to disk and renamed over `name`, so that the next start finds the old
    file or the new one, whole (also after a crash or a SIGKILL midway).
    Each call has its own temporary file: a save on SIGTERM may interrupt
    another. Returns the file's path; None outside slipway (nothing
    written). What write() raises is raised, and its file removed."""
    directory = state_dir()
    if directory is None:
        return None
    path = os.path.join(directory, name)
    fd, temporary = tempfile.mkstemp(dir=directory, prefix="." + os.path.basename(name) + ".", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            write(f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(temporary, path)
    except BaseException:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        raise
    return path
