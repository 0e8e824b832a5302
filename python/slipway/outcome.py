"""How a run ended, as the launcher recorded it: RUN/outcome.json (schema 1,
docs/runs.md#outcomejson), read into sw.Outcome for --launch=test.

The file is data the launcher writes at the end of every run (the exit
status, the failed unit and each task in it, the cause, each task's
traceback file): nothing here parses progress lines or task output.
Reads are bounded and never follow a link or wait on a FIFO.
"""

import json
import os
import stat
from typing import Any, Optional

__all__ = ["Outcome", "read_outcome"]

SCHEMA = 1
MAX_OUTCOME_BYTES = 1 << 20      # the launcher writes far less (docs/runs.md)
MAX_TRACEBACK_BYTES = 128 * 1024  # the launcher keeps 64 KiB of a traceback


def _read_regular(path: str, limit: int) -> Optional[bytes]:
    """The bytes of the regular file at path, or None when it is absent, no
    regular file (a link, a FIFO) or over limit bytes."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size > limit:
            return None
        data = b""
        while len(data) <= limit:
            chunk = os.read(fd, limit + 1 - len(data))
            if not chunk:
                break
            data += chunk
        return data if len(data) <= limit else None
    finally:
        os.close(fd)


def read_outcome(run_dir: str) -> Optional[dict[str, Any]]:
    """RUN/outcome.json as a dict, or None when the run has none (it still
    runs, its launcher was killed, or the file is no schema-1 outcome)."""
    data = _read_regular(os.path.join(run_dir, "outcome.json"), MAX_OUTCOME_BYTES)
    if data is None:
        return None
    try:
        record = json.loads(data.decode("utf-8", errors="replace"))
    except ValueError:
        return None
    if not isinstance(record, dict) or record.get("schema") != SCHEMA or not isinstance(record.get("exit"), int):
        return None
    outcome: dict[str, Any] = record
    return outcome


class Outcome:
    """What a --launch=test run ended with.

    success: exit status 0 and not timed out (the Outcome is true then);
    exit_status (slipway run's), timed_out, output (everything slipway run
    printed), run_dir, topology (the file's path), and, from the run's
    outcome.json (None when it has none):
      record        the whole outcome.json, as a dict;
      result        "succeeded", "failed", "stopped" or "error";
      failed_unit   the launch unit that failed: "NODE.REPLICA", or
                    "a.0+b.0" for a colocate group;
      failed_task   the task whose end failed it ("NODE.REPLICA");
      cause         {"kind": "exit"|"signal"|"lost"|..., "code", "description"};
      traceback_file, traceback   the failed task's last Python traceback
                    on its failed attempt (its file, and its text; "" when
                    there is none).
    """

    def __init__(self, exit_status: int, output: str, timed_out: bool, run_dir: Optional[str],
                 topology: Optional[str]) -> None:
        self.exit_status, self.output, self.timed_out = exit_status, output, timed_out
        self.run_dir, self.topology = run_dir, topology
        self.success = exit_status == 0 and not timed_out
        self.record = read_outcome(run_dir) if run_dir else None
        record = self.record or {}
        self.result: Optional[str] = record.get("result")
        failed_unit = record.get("failed_unit")
        unit: dict[str, Any] = failed_unit if isinstance(failed_unit, dict) else {}
        self.failed_unit: Optional[str] = unit.get("name")
        self.cause: Optional[dict[str, Any]] = unit.get("cause")
        tasks: list[dict[str, Any]] = [t for t in unit.get("tasks") or [] if isinstance(t, dict)]
        failed = [t for t in tasks if t.get("failed")]
        self.failed_task: Optional[str] = failed[0].get("name") if failed else None
        with_traceback = [t for t in failed + tasks if isinstance(t.get("traceback"), str)]
        self.traceback_file: Optional[str] = with_traceback[0]["traceback"] if with_traceback else None
        self.traceback = ""
        if self.traceback_file:
            data = _read_regular(self.traceback_file, MAX_TRACEBACK_BYTES)
            self.traceback = data.decode("utf-8", errors="replace") if data is not None else ""

    def __repr__(self) -> str:
        return ("Outcome(success=%r, exit_status=%r, timed_out=%r, failed_task=%r, failed_unit=%r)"
                % (self.success, self.exit_status, self.timed_out, self.failed_task, self.failed_unit))

    def __bool__(self) -> bool:

        return self.success
