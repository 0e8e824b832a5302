"""The life cycle of a program seen from one of its tasks: stop the whole
program (sw.stop(), as `slipway stop` does from inside a task), wait for the
stop, and react to it.

slipway stops a program by sending SIGTERM to every task (then SIGKILL after
the launcher's grace period, `--grace`, 10 s by default). In a task run by
slipway.program_node, SIGTERM sets stop_event() and runs the registered stop
handlers; then the task exits at once (status 0) unless it registered a
handler or asked for stop_event()/wait_for_stop(), in which case it is
trusted to end by itself within the grace period.
"""

import os
import shutil
import signal
import subprocess
import sys
import threading
import types
from typing import Callable, Optional, TypeVar

_H = TypeVar("_H", bound=Callable[[], object])

__all__ = ["stop", "wait_for_stop", "stop_event", "register_stop_handler", "install_signal_handlers"]

_event = threading.Event()
_handlers: list[Callable[[], object]] = []
_watched = False
_slipway_binary: Optional[str] = None   # set by slipway.program_node from its --slipway argument


def set_slipway_binary(path: str) -> None:
    global _slipway_binary
    _slipway_binary = path


def _binary() -> str:
    for candidate in (_slipway_binary, os.environ.get("SLIPWAY"), shutil.which("slipway")):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    raise RuntimeError("sw.stop(): the slipway command is not found: put it on PATH or set "
                       "SLIPWAY to its path")


def stop(reason: str = "") -> None:
    """Stops the whole program this task belongs to: every task gets SIGTERM
    (this one too) and the launcher exits 0 unless a task had failed."""
    if not os.environ.get("SLIPWAY_RDZV") or not os.environ.get("SLIPWAY_TOKEN"):
        raise RuntimeError("sw.stop() works in a task of a slipway program (SLIPWAY_RDZV and "
                           "SLIPWAY_TOKEN are not set here); from a terminal use `slipway stop`")
    who = "%s.%s" % (os.environ.get("SLIPWAY_NODE", "?"), os.environ.get("SLIPWAY_REPLICA", "?"))
    argv = [_binary(), "stop", "--reason", reason or "sw.stop() in %s" % who]
    done = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if done.returncode != 0:
        raise RuntimeError("sw.stop(): `%s` failed (status %d): %s"
                           % (" ".join(argv), done.returncode, done.stdout.strip()))


def stop_event() -> threading.Event:
    """A threading.Event set when the program stops (this task got SIGTERM)."""
    global _watched
    _watched = True
    return _event


def wait_for_stop(timeout: Optional[float] = None) -> bool:
    """Blocks until the program stops (True) or timeout seconds pass (False)."""
    global _watched
    _watched = True
    return _event.wait(timeout)


def register_stop_handler(handler: _H) -> _H:
    """Calls handler() when the program stops (on SIGTERM, in the main thread)."""
    _handlers.append(handler)
    return handler


def handle_stop_signal(signum: int, _frame: Optional[types.FrameType]) -> None:
    """What SIGTERM and SIGINT do in a task (module docstring); also called
    by slipway.checkpoint's SIGTERM handler after the checkpoint handlers."""
    _event.set()
    for handler in list(_handlers):
        handler()
    if not _handlers and not _watched:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(0)


def install_signal_handlers() -> None:

    """SIGTERM and SIGINT stop this task as the module docstring says."""
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, handle_stop_signal)
