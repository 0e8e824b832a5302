"""The checkpoint notice seen from a task (issue 28; docs/python.md,
"Checkpoints and resumes").

Before a stop it can foresee (the time limit's warning, a preemption, a
requeue, a SIGTERM or SIGINT to the launcher) or when a user types
`slipway checkpoint`, slipway gives every task of the program a notice: the
task agent writes it, atomically, as JSON to the task's
$SLIPWAY_NOTICE_FILE (absent until the first notice):

    {"seq": 1, "reason": "time limit is near (SIGUSR1)", "deadline_unix_ms": 1764321234567, "stop": true}

checkpoint_requested() returns the newest notice (or None); on_checkpoint(fn)
calls fn(notice) once per notice, from a daemon thread that watches the
file (a stat every 100 ms). Slurm sends SIGTERM straight to every process of
a step when it preempts the job, possibly before any notice is written: once
on_checkpoint was called (from the main thread), SIGTERM first runs the
handlers (with the file's notice when one is there that they have not seen,
else with a notice of reason "SIGTERM" made here), then the SIGTERM handler
that was there before (slipway.lifecycle's stop behaviour when there was
none).

The file comes from outside this process: it is read at most 4096 bytes,
never through a symbolic link, and a file that is missing, too large or not
a notice is no notice (said once on stderr). Nothing here raises into the
user's program; a handler that raises is reported on stderr and the others
still run.
"""

import json
import math
import os
import signal
import stat
import sys
import threading
import time
import traceback
import types
from typing import Any, Callable, NamedTuple, Optional, Union

from . import lifecycle

__all__ = ["Notice", "checkpoint_requested", "on_checkpoint"]

MAX_NOTICE_BYTES = 4096
POLL_SECONDS = 0.1
MAX_REASON_CHARS = 1000
# The deadline of a notice made here for a SIGTERM (no one said one): the
# launcher's default --grace, after which it kills what still runs.
SIGTERM_DEADLINE_SECONDS = 10.0


class Notice(NamedTuple):
    """A checkpoint notice: seq (1, 2, ... per notice of the program; 0 for the
notice made on SIGTERM), reason (text), deadline (unix seconds, a float, by
which the task should have saved its state; None when the notice gave none)
and stop (True when the program stops at the deadline, False for a
checkpoint without a stop)."""
    seq: int
    reason: str
    deadline: Optional[float]
    stop: bool


# A file's signature (its device, inode, size and time), or what failed to give one.
_Signature = tuple[Any, ...]

# The state below is shared by the watcher thread, the SIGTERM handler (the
# main thread, between any two of its statements) and the callers. It takes
# no lock the main thread could hold when a SIGTERM interrupts it: each
# update is one assignment (atomic under the GIL), and _dispatching, held
# while handlers run, is taken by _dispatch() only.
_cache: tuple[Optional[_Signature], Optional[Notice]] = (None, None)  # (the file's signature,
                                                                      # its Notice or None)
_warned: set[Optional[_Signature]] = set()  # signatures already reported as bad
_handlers: list[list[Any]] = []  # [fn, seq of the last notice it was given]: a notice
                                # is new to it when its seq is another (seq grows by one
                                # per notice of a run; a run resumed by a new job may
                                # count again from 1)
_dispatching = threading.RLock()
_sigterm_notice_given = False   # the handlers had the notice made for a SIGTERM (under _dispatching)
_sigterm_running = False        # the SIGTERM handler runs (main thread only)
_sigterm_previous: Union[Callable[[int, Optional[types.FrameType]], Any], int, signal.Handlers, None] \
    = None                      # the SIGTERM handler before ours
_start = threading.Lock()       # on_checkpoint()'s start of the watcher and of the SIGTERM handler
_watcher: Optional[threading.Thread] = None
_sigterm_installed = False
_thread_warned = False          # said that on_checkpoint() came from another thread


def _say(text: str) -> None:
    try:
        sys.stderr.write("slipway: %s\n" % text)
        sys.stderr.flush()
    except Exception:  # a closed stderr must not fail the program
        pass


def _signature(st: os.stat_result) -> _Signature:
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)


def _parse(data: bytes) -> Notice:
    """The Notice in the file's bytes; raises ValueError saying what is wrong."""
    try:
        value = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ValueError("not JSON (%s)" % error) from None
    if not isinstance(value, dict):
        raise ValueError("not a JSON object")
    seq = value.get("seq")
    if isinstance(seq, bool) or not isinstance(seq, int) or seq < 1:
        raise ValueError("its 'seq' is not a positive integer")
    reason = value.get("reason")
    reason = reason[:MAX_REASON_CHARS] if isinstance(reason, str) else ""
    deadline: Optional[float] = value.get("deadline_unix_ms")
    if isinstance(deadline, bool) or not isinstance(deadline, (int, float)) or not math.isfinite(deadline):
        deadline = None
    else:
        deadline = deadline / 1000.0
    stop = value.get("stop")
    return Notice(seq, reason, deadline, stop if isinstance(stop, bool) else False)


def _read(path: str) -> tuple[Optional[_Signature], Optional[Notice], Optional[str]]:
    """(signature, Notice or None, what is wrong or None) of the file now."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        return None, None, None
    except OSError as error:
        if error.errno == getattr(os, "ELOOP", 40):
            return ("link",), None, "it is a symbolic link (the agent writes a regular file)"
        return ("error", error.errno), None, "cannot open it (%s)" % error.strerror
    try:
        st = os.fstat(fd)
        signature = _signature(st)
        if not stat.S_ISREG(st.st_mode):
            return signature, None, "it is not a regular file"
        chunks: list[bytes] = []
        size = 0
        while size <= MAX_NOTICE_BYTES:
            chunk = os.read(fd, MAX_NOTICE_BYTES + 1 - size)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        if size > MAX_NOTICE_BYTES:
            return signature, None, "it is larger than %d bytes" % MAX_NOTICE_BYTES
        return signature, _parse(b"".join(chunks)), None
    except ValueError as error:
        return signature, None, str(error)
    except OSError as error:
        return ("error", error.errno), None, "cannot read it (%s)" % error.strerror
    finally:
        os.close(fd)


def checkpoint_requested() -> Optional[Notice]:
    """The newest checkpoint notice of this task (a Notice), or None when
    there has been none (or outside slipway: no SLIPWAY_NOTICE_FILE). Cheap
    enough to call every step: the file is read again only when it changed."""
    global _cache
    path = os.environ.get("SLIPWAY_NOTICE_FILE")
    if not path:
        return None
    try:
        now: _Signature
        try:
            now = _signature(os.lstat(path))
        except FileNotFoundError:
            _cache = (None, None)
            return None
        except OSError as error:
            now = ("error", error.errno)
        cached = _cache
        if cached[0] == now:
            return cached[1]
        signature, notice, problem = _read(path)
        _cache = (signature, notice)
        if problem and signature not in _warned:
            if len(_warned) > 64:
                _warned.clear()
            _warned.add(signature)
            _say("ignoring the checkpoint notice %s: %s" % (path, problem))
        return notice
    except Exception as error:  # never into the user's program
        _say("cannot read the checkpoint notice %s: %s" % (path, error))
        return None


def _dispatch(notice: Notice, synthetic: bool = False) -> None:
    """Gives `notice` to every handler that has not had it (one at a time,
    in registration order); the notice made for a SIGTERM goes once."""
    global _sigterm_notice_given
    with _dispatching:
        if synthetic:
            if _sigterm_notice_given:
                return
            _sigterm_notice_given = True
            due = list(_handlers)
        else:
            due = [h for h in list(_handlers) if h[1] != notice.seq]
            for h in due:
                h[1] = notice.seq
            if _sigterm_notice_given and notice.stop:
                due = []  # the stop it announces was saved for already, on SIGTERM
        for handler in due:
            try:
                handler[0](notice)
            except Exception:
                _say("the checkpoint handler %s failed on notice %d (%s):\n%s"
                     % (getattr(handler[0], "__qualname__", repr(handler[0])), notice.seq, notice.reason,
                        traceback.format_exc().rstrip()))


def _watch() -> None:
    while True:
        time.sleep(POLL_SECONDS)
        try:
            notice = checkpoint_requested()
            if notice is not None:
                _dispatch(notice)
        except Exception:  # the watcher outlives anything
            _say("checkpoint notice watcher:\n%s" % traceback.format_exc().rstrip())


def _on_sigterm(signum: int, frame: Optional[types.FrameType]) -> None:
    global _sigterm_running
    if _sigterm_running:
        return  # a second SIGTERM while the handlers save: the first one stops after them
    _sigterm_running = True
    try:
        # Waits for handlers the watcher may be running: the task must not
        # stop under them.
        with _dispatching:
            notice = checkpoint_requested()
            if notice is not None and any(h[1] != notice.seq for h in list(_handlers)):
                _dispatch(notice)
            elif notice is None or not notice.stop:
                # No notice announced this stop: Slurm's SIGTERM came first (or alone).
                _dispatch(Notice(0, "SIGTERM", time.time() + SIGTERM_DEADLINE_SECONDS, True), synthetic=True)
    except Exception:
        _say("checkpoint handlers on SIGTERM:\n%s" % traceback.format_exc().rstrip())
    finally:
        _sigterm_running = False
    previous = _sigterm_previous
    if callable(previous):
        previous(signum, frame)
    elif previous != signal.SIG_IGN:
        lifecycle.handle_stop_signal(signum, frame)


def on_checkpoint(fn: Callable[[Notice], object]) -> Callable[[Notice], object]:

    """Calls fn(notice) once per checkpoint notice (a Notice) from a daemon
    thread, and on SIGTERM before the program's usual stop (module
    docstring). Returns fn, so it works as a decorator. Handlers run one at
    a time; keep them short (the notice's deadline) and do not take a lock
    that the main thread may hold: on SIGTERM they run in the main thread,
    between two of its statements."""
    global _watcher, _sigterm_installed, _sigterm_previous, _thread_warned
    if not callable(fn):
        raise TypeError("sw.on_checkpoint() takes a function of one argument (the notice), not %r" % (fn,))
    _handlers.append([fn, 0])
    with _start:
        if _watcher is None:
            _watcher = threading.Thread(target=_watch, name="slipway-checkpoint-notice", daemon=True)
            _watcher.start()
        if not _sigterm_installed:
            if threading.current_thread() is threading.main_thread():
                _sigterm_previous = signal.signal(signal.SIGTERM, _on_sigterm)
                _sigterm_installed = True
            elif not _thread_warned:
                _thread_warned = True
                _say("sw.on_checkpoint() was called outside the main thread: SIGTERM will not run the "
                     "checkpoint handlers until it is called from the main thread")
    return fn
