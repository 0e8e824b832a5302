"""The lease journal of a replay client (docs/replay.md, "Lease journals").
Private: import slipway.replay."""

import os
import stat
import sys
import threading
from typing import Iterable, Optional

# A lease journal's entry: (shard, table, key, token).
_Entry = tuple[int, str, int, bytes]


class _LeaseJournal:
    """The leases one client holds, in a private file of the run directory
    ($SLIPWAY_RUN_DIR/replay-leases/REPLAY_NODE/NODE.REPLICA.ATTEMPT.CLIENT,
    0600 in 0700 directories, never through a symbolic link), so that the
    task's next attempt can return them with their tokens: the same files
    as the C++ client's (node_types/replay/src/lease_journal.cpp). Lines:
    "SHARD KEY TOKENHEX TABLEHEX". Best effort: an OSError turns it off."""

    _HEADER = b"slipway-replay-leases 1\n"
    _MAX_BYTES = 16 << 20
    _DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC

    def __init__(self, directory: int, task: str, attempt: int, name: str) -> None:
        self._dir: Optional[int] = directory
        self._task, self._attempt, self._name = task, attempt, name
        self._held: dict[int, _Entry] = {}
        self._fd: Optional[int] = None
        self._lock = threading.Lock()

    @classmethod
    def open(cls, replay_node: str, node: str, replica: int, attempt: int,
             client_id: int) -> "Optional[_LeaseJournal]":
        run_dir = os.environ.get("SLIPWAY_RUN_DIR", "")
        if not run_dir or not all(_plain(n) for n in (node, replay_node)):
            return None
        fds: list[int] = []
        try:
            fds.append(os.open(run_dir, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC))
            for name in ("replay-leases", replay_node):
                try:
                    os.mkdir(name, 0o700, dir_fd=fds[-1])
                except FileExistsError:
                    pass
                fds.append(os.open(name, cls._DIR_FLAGS, dir_fd=fds[-1]))
        except OSError as error:
            print("slipway replay: no lease journal under %s/replay-leases/%s (%s): a relaunched "
                  "task's predecessor's leases will return when they expire"
                  % (run_dir, replay_node, error.strerror), file=sys.stderr)
            for fd in fds:
                os.close(fd)
            return None
        directory = fds.pop()
        for fd in fds:
            os.close(fd)
        task = "%s.%d" % (node, replica)
        return cls(directory, task, attempt, "%s.%d.%016x" % (task, attempt, client_id))

    @staticmethod
    def format(entries: Iterable[_Entry]) -> bytes:
        return _LeaseJournal._HEADER + b"".join(
            b"%d %d %s %s\n" % (shard, key, token.hex().encode(), table.encode().hex().encode())
            for shard, table, key, token in entries)

    @staticmethod
    def parse(data: bytes) -> list[_Entry]:
        lines = data.split(b"\n")
        if not lines or lines[0] + b"\n" != _LeaseJournal._HEADER:
            return []
        entries: list[_Entry] = []
        for line in lines[1:-1]:  # the last is empty, or cut short by a crash
            try:
                shard, key, token_hex, table = line.split(b" ")
                token = bytes.fromhex(token_hex.decode())
                if len(token) == 16:
                    entries.append((int(shard), bytes.fromhex(table.decode()).decode(), int(key), token))
            except ValueError:
                continue
        return entries

    def _write(self) -> None:
        if self._dir is None:
            return
        try:
            if self._fd is None:
                flags = os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
                self._fd = os.open(self._name, flags, 0o600, dir_fd=self._dir)
            data = self.format(self._held.values())
            os.ftruncate(self._fd, 0)
            done = 0
            while done < len(data):
                done += os.pwrite(self._fd, data[done:], done)
        except OSError as error:
            print("slipway replay: cannot keep the lease journal %s (%s): journal off; a relaunched "
                  "task's predecessor's leases will return when they expire"
                  % (self._name, error.strerror), file=sys.stderr)
            self._close_fds()

    def add(self, entries: Iterable[_Entry]) -> None:
        with self._lock:
            for entry in entries:
                self._held[entry[2]] = entry
            self._write()

    def remove(self, keys: Iterable[int]) -> None:
        with self._lock:
            if sum(self._held.pop(key, None) is not None for key in keys):
                self._write()

    def take_predecessors(self) -> list[_Entry]:
        """The leases earlier attempts of this task journaled; their files go."""
        with self._lock:
            if self._dir is None or self._attempt == 0:
                return []
            entries: list[_Entry] = []
            for name in os.listdir(self._dir):
                attempt, dot, client = name[len(self._task) + 1:].partition(".")
                if (not name.startswith(self._task + ".") or not dot or "." in client or
                        not attempt.isdigit() or int(attempt) >= self._attempt):
                    continue
                entries.extend(self.parse(self._read(name)))
                try:
                    os.unlink(name, dir_fd=self._dir)
                except OSError:
                    pass
            return entries

    def _read(self, name: str) -> bytes:
        try:
            fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, dir_fd=self._dir)
        except OSError:
            return b""
        try:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode) or st.st_size > self._MAX_BYTES:
                return b""
            return os.pread(fd, st.st_size, 0)
        finally:
            os.close(fd)

    def _close_fds(self) -> None:
        for fd in (self._fd, self._dir):
            if fd is not None:
                os.close(fd)
        self._fd = self._dir = None

    def close(self) -> None:
        """Removes this client's file when it holds no lease (else the
        task's next attempt returns them)."""
        with self._lock:
            if self._fd is not None and not self._held:
                try:
                    os.unlink(self._name, dir_fd=self._dir)
                except OSError:
                    pass
            self._close_fds()


def _plain(name: str) -> bool:
    return bool(name) and not name.startswith(".") and "/" not in name and len(name) <= 255
