"""The client of slipway's replay and queue service (a node of type
"replay", docs/topology.md "Replay nodes"), over courier RPC
(slipway.courier), speaking the wire protocol of docs/replay.md.

    from slipway import replay

    rb = replay.Client("replay")                            # every shard of node "replay"
    key = rb.insert(data, priorities={"experience": 1.0})   # data: bytes (or any buffer)
    with rb.writer("experience", max_in_flight=8) as w:     # pipelined inserts, backpressure
        w.append(data, priority=1.0)
    batch = rb.sample("experience", n=32, timeout=60)       # [Sample(key, data, priority, ...)]
    for batch in rb.sampler("experience", batch_size=32, prefetch=4): ...
    rb.update_priorities("experience", {key: 0.5})
    rb.delete("experience", [key]); rb.reset("experience"); rb.checkpoint()
    rb.server_info()                                        # {table: TableInfo}, as Reverb's
    rb.info()                                               # [ShardInfo], one per shard

    q = replay.Queue("replay", "tasks")                     # pickled objects, FIFO per shard
    q.put(obj); obj = q.get(timeout=10)                     # replay.Empty when none came

    pool = replay.Pool("replay", "jobs", worker_node="worker")   # a kind = "work" table
    results = pool.map(square, range(100))                  # on the caller
    pool.serve({"square": square})                          # on every task of node "worker"

Each replica of a replay node is a shard with items of its own: inserts go
to the shards in turn (starting at this task's replica), samples and gets
ask them in turn. Keys carry their shard, so update_priorities, delete and
a work item's ack go to the shard that holds the item.

Retries: a call that fails because its shard restarted or is restarting
(courier's peer_restarted, peer_lost, timeout while no address is
published) is sent again until the caller's own timeout has passed: info,
sample, update_priorities, delete, reset, checkpoint, lease, ack. An insert
whose reply did not come is re-sent with the same sequence number (the
server answers a repeat it remembers with the first keys; a shard that
restarted from a checkpoint may store it again: at least once). A blocked
call (rate limiter, empty queue) is parked by the server for at most 10 s at
a time and asked again until the timeout (None: no end).

A Pool's work items are handed out on lease, each with a random token that
its ack or nack must bring (Client.lease returns Lease objects). Inside
slipway a client keeps the leases it holds in a private journal file of the
run directory; its first lease() in a relaunched task returns (nacks) the
leases its task's earlier attempts held, so an item whose worker died goes
out again at once, or when its lease expires: a task may run more than
once, so use pools for idempotent work (docs/replay.md, "Lease journals").
"""

import collections
import os
import pickle
import random
import signal
import stat
import struct
import sys
import threading
import time
import traceback
import weakref
import queue as _queue
from typing import (Any, Callable, Iterable, Iterator, Mapping, NamedTuple, Optional, Sequence, TypeVar,
                    Union, cast)

from . import courier

_Self = TypeVar("_Self", bound="_Closing")
# Item data: any buffer (str is sent as UTF-8).
_Data = Union[bytes, bytearray, memoryview, str]
# A lease journal's entry: (shard, table, key, token).
_Entry = tuple[int, str, int, bytes]

__all__ = ["Client", "Writer", "Queue", "Pool", "Sample", "Lease", "TableInfo", "ShardInfo", "ReplayError",
           "ReplayTimeout", "Empty", "PoolTaskError"]

_VERSION = 2                 # 2: leases carry tokens
_OK, _NOT_READY, _INVALID, _TOO_LARGE = 0, 1, 2, 3
_STATUS = {_INVALID: "invalid", _TOO_LARGE: "too_large"}
_KINDS = ("table", "queue", "stack", "work")
_SELECTORS = ("uniform", "fifo", "lifo", "max_heap", "min_heap", "prioritized")
_MAX_ITEMS = 65536           # items per insert, samples per call (docs/replay.md "Limits")
_MAX_KEYS = 1048576          # updates, deletes, acks per call
_PARK_MS = 10000             # the longest a request is parked at once
_MARGIN = 5.0                # a call's courier timeout: wait_ms + this (docs/replay.md)
_RETRIED = ("peer_restarted", "peer_lost", "timeout", "overloaded", "not_resolved")
_RESULT_METHOD = "slipway_pool_result"

_u8, _u16, _u32, _u64, _i64, _f64 = (struct.Struct(f) for f in ("<B", "<H", "<I", "<Q", "<q", "<d"))


class Sample(NamedTuple):
    """One sampled item: its key, its data (bytes), its priority, the
probability the sampler picked it with, how often it has been sampled
(this time included) and the table's size at that draw."""
    key: int
    data: bytes
    priority: float
    probability: float
    times_sampled: int
    table_size: int


class Lease(NamedTuple):
    """One leased work item: its key, how often it has been leased
(this time included), its data (bytes) and the lease's token (16 random
bytes): ack() and nack() of the item must bring it (pass the Lease)."""
    key: int
    times_leased: int
    data: bytes
    token: bytes


class TableInfo(NamedTuple):
    """One table as a shard reports it (docs/replay.md, `info`), or as
    Client.server_info() sums it over the node's shards. `current_size` is
    `size` (Reverb's name)."""
    name: str
    kind: str
    sampler: str
    sampler_exponent: float
    remover: str
    remover_exponent: float
    max_size: int
    max_times_sampled: int
    size: int
    leased: int
    samples_per_insert: float
    min_size_to_sample: int
    min_diff: float
    max_diff: float
    inserts: int
    samples: int
    deletes: int
    parked_inserts: int
    parked_samples: int
    lease_ms: int

    @property
    def current_size(self) -> int:
        return self.size


# Fields Client.server_info() sums over the shards (the rest are configured
# alike on every shard).
_SUMMED = ("max_size", "size", "leased", "inserts", "samples", "deletes", "parked_inserts", "parked_samples")


class ShardInfo(NamedTuple):
    """What one shard reports (docs/replay.md, `info`); `tables`
maps each table's name to its TableInfo."""
    shard: int
    server_attempt: int
    data_bytes: int
    max_data_bytes: int
    max_item_bytes: int
    checkpoint_path: str
    tables: dict[str, TableInfo]


class ReplayError(Exception):
    """A request the service refused, or one that could not reach it. `code`:
    "invalid" (a malformed request, unknown table, wrong table kind, bad
    argument: the message says which), "too_large" (an item or the shard's
    memory past its limit), "protocol" (a reply this client cannot read), or
    courier's code when the call itself failed (courier.CourierError)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


class ReplayTimeout(ReplayError, TimeoutError):
    """The call's timeout passed before the service could serve it (a rate
    limiter that holds samples or inserts back, an empty queue). `samples`:
    what a sample() of several items had got before it (out of the table
    already when it is a queue or a stack), else empty."""

    def __init__(self, message: str, samples: Iterable[Sample] = ()) -> None:
        super().__init__("timeout", message)
        self.samples = list(samples)


class Empty(ReplayTimeout, _queue.Empty):
    """Queue.get: nothing came within the timeout."""


class PoolTaskError(Exception):
    """A Pool task raised on its worker; the message holds its traceback."""


def _text(value: _Data) -> bytes:
    data = value.encode("utf-8") if isinstance(value, str) else bytes(value)
    if len(data) > 0xFFFF:
        raise ReplayError("invalid", "a name of %d bytes is longer than 65535" % len(data))
    return _u16.pack(len(data)) + data


def _blob(data: _Data) -> bytes:
    data = data.encode("utf-8") if isinstance(data, str) else bytes(data)
    return _u32.pack(len(data)) + data


class _Reply:
    """Reads one reply body, little-endian, as docs/replay.md lays it out."""

    def __init__(self, data: bytes) -> None:
        self._view, self._at = memoryview(data), 0

    def _take(self, layout: struct.Struct) -> Any:
        try:
            value = layout.unpack_from(self._view, self._at)[0]
        except struct.error:
            raise ReplayError("protocol", "a reply from the replay service is cut short") from None
        self._at += layout.size
        return value

    def u8(self) -> int:
        return cast(int, self._take(_u8))

    def u32(self) -> int:
        return cast(int, self._take(_u32))

    def u64(self) -> int:
        return cast(int, self._take(_u64))

    def i64(self) -> int:
        return cast(int, self._take(_i64))

    def f64(self) -> float:
        return cast(float, self._take(_f64))

    def _bytes(self, size: int) -> bytes:
        if self._at + size > len(self._view):
            raise ReplayError("protocol", "a reply from the replay service is cut short")
        data = bytes(self._view[self._at:self._at + size])
        self._at += size
        return data

    def text(self) -> str:
        return self._bytes(self._take(_u16)).decode("utf-8", "replace")

    def blob(self) -> bytes:
        return self._bytes(self.u32())


def _parse(data: Optional[bytes]) -> Optional[_Reply]:
    """The reply after its status: a _Reply, or None for not_ready. Raises
    ReplayError for invalid and too_large."""
    reply = _Reply(cast(bytes, data))  # None only for a send, never made here
    status = reply.u8()
    if status == _OK:
        return reply
    if status == _NOT_READY:
        return None
    if status in _STATUS:
        raise ReplayError(_STATUS[status], reply.text())
    raise ReplayError("protocol", "the replay service answered with unknown status %d" % status)


class _Deadline:
    """A caller's timeout: None waits without end."""

    def __init__(self, timeout: Optional[float]) -> None:
        self._end = None if timeout is None else time.monotonic() + max(0.0, timeout)

    def left(self) -> Optional[float]:
        return None if self._end is None else max(0.0, self._end - time.monotonic())

    def passed(self) -> bool:
        return self._end is not None and time.monotonic() >= self._end

    def wait_ms(self, cap_ms: int = _PARK_MS) -> int:
        left = self.left()
        return cap_ms if left is None else min(cap_ms, int(left * 1000))


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


def _close_at_exit(owner: object, endpoint: courier.Endpoint) -> weakref.finalize:
    """Closes `endpoint` when `owner` is collected or, at the latest, when
    the interpreter exits (atexit, while the endpoint's threads can still
    enter Python): an endpoint left open into the interpreter's
    finalization can abort the process ("FATAL: exception not rethrown")
    when its progress thread calls a handler then."""
    return weakref.finalize(owner, endpoint.close)


def _lease_refs(leases: Iterable[Union[Lease, tuple[int, bytes]]]) -> list[tuple[int, bytes]]:
    """(key, token) of each lease: a Lease, or a (key, token) pair."""
    refs = []
    for lease in leases:
        if isinstance(lease, Lease):
            key, token = lease.key, lease.token
        else:
            try:
                key, token = lease
            except (TypeError, ValueError):
                raise ReplayError("invalid", "ack and nack take the leases lease() returned (or (key, token) "
                                  "pairs), not %r: a lease is freed only with its token" % (lease,)) from None
        if not isinstance(token, (bytes, bytearray)) or len(token) != 16:
            raise ReplayError("invalid", "the token of lease %r is not 16 bytes" % (key,))
        refs.append((int(key), bytes(token)))
    return refs


def _env_int(name: str) -> int:
    try:
        return int(os.environ.get(name, "0"))
    except ValueError:
        return 0


class _Closing:
    """`with` closes it."""

    def close(self) -> None:
        raise NotImplementedError

    def __enter__(self: _Self) -> _Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class Client(_Closing):
    """Every shard of replay node `node`. `endpoint`: the courier.Endpoint to
    call through (one of its own by default, found through the program's
    rendezvous). Thread-safe: calls from several threads may run at once."""

    def __init__(self, node: str, endpoint: Optional[courier.Endpoint] = None,
                 resolve_timeout: Optional[float] = 60.0) -> None:
        self.node = node
        self._own_endpoint = endpoint is None
        self._endpoint = endpoint if endpoint is not None else courier.Endpoint()
        if self._own_endpoint:
            _close_at_exit(self, self._endpoint)
        # set, retries and waits end (Pool.serve's stop)
        self._stopping: Optional[threading.Event] = None
        self._resolve_timeout = resolve_timeout
        self._shards: Optional[list[courier.Handle]] = None
        self._lock = threading.Lock()
        self._client_id = random.SystemRandom().getrandbits(64) | 1
        self._seq = 0
        replica, attempt, task_node = _env_int("SLIPWAY_REPLICA"), _env_int("SLIPWAY_ATTEMPT"), \
            os.environ.get("SLIPWAY_NODE", "")[:255]
        self._turn = replica
        self._task = (task_node, replica, attempt)
        self._journal: Optional[_LeaseJournal] = None
        self._journal_lock, self._journal_started = threading.Lock(), False
        self._caller = (_u8.pack(_VERSION) + _u64.pack(self._client_id) + _u32.pack(replica) +
                        _u32.pack(attempt) + _text(task_node))

    # --- shards and calls -------------------------------------------------

    @property
    def shards(self) -> list[courier.Handle]:
        """Handles to the node's shards, in replica order (resolved once)."""
        with self._lock:
            if self._shards is None:
                self._shards = self._endpoint.resolve_all(self.node, timeout=self._resolve_timeout)
                if not self._shards:
                    raise ReplayError("not_resolved", "replay node %r has no shards" % self.node)
            return self._shards

    def _next_shard(self) -> int:
        count = len(self.shards)
        with self._lock:
            self._turn += 1
            return self._turn % count

    def _next_seq(self) -> int:
        with self._lock:
            self._seq += 1
            return self._seq

    def _shard_of(self, key: int) -> int:
        shard = key >> 48
        if shard >= len(self.shards):
            raise ReplayError("invalid", "key %d names shard %d, but node %r has %d" %
                              (key, shard, self.node, len(self.shards)))
        return shard

    def _call(self, shard: int, method: str, body: bytes, deadline: _Deadline,
              wait_ms: int = 0) -> Optional[_Reply]:
        """Sends caller block + body to one shard; returns its _Reply, or None
        when it answered not_ready. Sends again after a restart until the
        deadline."""
        request = self._caller + body
        while True:
            try:
                if self._stopping is None:
                    return _parse(self.shards[shard].call(method, request, timeout=wait_ms / 1000 + _MARGIN))
                return _parse(self._stoppable_call(shard, method, request, wait_ms))
            except courier.CourierError as error:
                if error.code not in _RETRIED or deadline.passed():
                    raise ReplayError(error.code, "%s on shard %d of %r: %s" %
                                      (method, shard, self.node, error)) from error
            if self._stopping is not None and self._stopping.is_set():
                raise ReplayTimeout("%s on shard %d of %r: stopped while the shard did not answer" %
                                    (method, shard, self.node))
            time.sleep(0.05)

    def _stoppable_call(self, shard: int, method: str, request: bytes, wait_ms: int) -> Optional[bytes]:
        """A call that, once _stopping is set, gives up on a shard that has
        not answered within wait_ms + 0.5 s (a shard that answers answers by
        wait_ms; one that stopped does not, and its call would wait out the
        margin): a Pool worker told to stop ends within its lease wait."""
        future = self.shards[shard].call_async(method, request, timeout=wait_ms / 1000 + _MARGIN)
        patience = time.monotonic() + wait_ms / 1000 + 0.5
        while True:
            try:
                return future.result(timeout=0.05)
            except courier.CourierError:
                if future.done():
                    raise  # the call itself failed
            if self._stopping is not None and self._stopping.is_set() and time.monotonic() >= patience:
                raise ReplayTimeout("%s on shard %d of %r: stopped while the shard did not answer" %
                                    (method, shard, self.node))

    def _pull(self, method: str, body_for: Callable[[int], bytes], deadline: _Deadline) -> _Reply:
        """A parked request (sample, lease) to the shards in turn: first each
        once without waiting, then parked on one after another, so that at
        most one request is out at a time (none is served and dropped).
        body_for(wait_ms) builds the body. Returns the first served _Reply;
        raises ReplayTimeout at the deadline."""
        count, first = len(self.shards), self._next_shard()
        for i in range(count):
            reply = self._call((first + i) % count, method, body_for(0), deadline)
            if reply is not None:
                return reply
        turn = 0
        # One shard is parked on for its whole wait; several, a second each.
        cap = _PARK_MS if count == 1 else 1000
        while not deadline.passed() and not (self._stopping is not None and self._stopping.is_set()):
            shard = (first + turn) % count
            turn += 1
            wait_ms = deadline.wait_ms(cap)
            reply = self._call(shard, method, body_for(wait_ms), deadline, wait_ms)
            if reply is not None:
                return reply
        raise ReplayTimeout("%s on %r: nothing could be served before the timeout" % (method, self.node))

    def _all_shards(self, method: str, body: bytes, timeout: Optional[float]) -> list[_Reply]:
        deadline = _Deadline(timeout)
        return [cast(_Reply, self._call(shard, method, body, deadline)) for shard in range(len(self.shards))]

    # --- inserts ----------------------------------------------------------

    def _insert_body(self, seq: int, wait_ms: int, items: Sequence[_Data],
                     priorities: Mapping[str, Sequence[float]]) -> bytes:
        parts = [_u64.pack(seq), _u32.pack(wait_ms), _u32.pack(len(items))]
        for i, data in enumerate(items):
            parts.append(_blob(data))
            parts.append(_u16.pack(len(priorities)))
            for table, values in priorities.items():
                parts.append(_text(table))
                parts.append(_f64.pack(float(values[i])))
        return b"".join(parts)

    @staticmethod
    def _priorities(priorities: Mapping[str, Any], count: int) -> dict[str, list[float]]:
        if not priorities:
            raise ReplayError("invalid", "give the tables to insert into: priorities={table: priority}")
        out = {}
        for table, value in priorities.items():
            values = list(value) if isinstance(value, (list, tuple)) else [value] * count
            if len(values) != count:
                raise ReplayError("invalid", "table %r has %d priorities for %d items" %
                                  (table, len(values), count))
            out[table] = values
        return out

    def insert(self, data: _Data, priorities: Mapping[str, Any], timeout: Optional[float] = None) -> int:
        """Inserts one item (bytes) into each table of `priorities` ({table:
        priority}), stored once; returns its key. Waits while a rate limiter
        or a full work table holds it back, up to `timeout` seconds."""
        return self.insert_many([data], priorities, timeout)[0]

    def insert_many(self, items: Iterable[_Data], priorities: Mapping[str, Any],
                    timeout: Optional[float] = None) -> list[int]:
        """Inserts items into one shard in one request; `priorities` maps each
        table to one priority for all or a list, one per item. Returns the
        keys in order."""
        listed = list(items)
        keys: list[int] = []
        for start in range(0, len(listed), _MAX_ITEMS):
            chunk = listed[start:start + _MAX_ITEMS]
            chunk_priorities = {t: v[start:start + len(chunk)]
                                for t, v in self._priorities(priorities, len(listed)).items()}
            keys.extend(self._insert_chunk(chunk, chunk_priorities, _Deadline(timeout)))
        return keys

    def _insert_chunk(self, items: Sequence[_Data], priorities: Mapping[str, Sequence[float]],
                      deadline: _Deadline) -> list[int]:
        shard, seq = self._next_shard(), self._next_seq()
        while True:
            wait_ms = deadline.wait_ms()
            reply = self._call(shard, "insert", self._insert_body(seq, wait_ms, items, priorities),
                               deadline, wait_ms)
            if reply is not None:
                return [reply.u64() for _ in range(reply.u32())]
            if deadline.passed():
                raise ReplayTimeout("insert into %r: the tables did not take the items before the "
                                    "timeout (a rate limiter or a full work table)" % self.node)

    def writer(self, table: str, max_in_flight: int = 8, batch_size: int = 1,
               priority_tables: Optional[Iterable[str]] = None, timeout: Optional[float] = None) -> "Writer":
        """A Writer: append(data, priority) with up to `max_in_flight` insert
        requests of `batch_size` items out at once; append blocks while the
        window is full (backpressure). Use it as a context manager, or call
        close(): what is left is flushed."""
        return Writer(self, table, max_in_flight, batch_size, priority_tables, timeout)

    # --- samples ----------------------------------------------------------

    @staticmethod
    def _samples(reply: _Reply) -> list[Sample]:
        out = []
        for _ in range(reply.u32()):
            key, priority, probability = reply.u64(), reply.f64(), reply.f64()
            table_size, times_sampled = reply.u64(), reply.u32()
            out.append(Sample(key, reply.blob(), priority, probability, times_sampled, table_size))
        return out

    def _sample_body(self, table: str, n: int, min_n: int) -> Callable[[int], bytes]:
        return lambda wait_ms: _text(table) + _u32.pack(n) + _u32.pack(min_n) + _u32.pack(wait_ms)

    def sample(self, table: str, n: int = 1, timeout: Optional[float] = None) -> list[Sample]:
        """n items of `table` (a list of Sample), from one shard or several;
        waits while the tables cannot give them, up to `timeout` seconds
        (ReplayTimeout then, whose `samples` are the items got before it, so
        that none taken out of a queue or a stack is lost; timeout=0: only
        what is there now). The items may come from several shards."""
        deadline, out = _Deadline(timeout), cast(list[Sample], [])
        while len(out) < n:
            want = min(n - len(out), _MAX_ITEMS)
            try:
                reply = self._pull("sample", self._sample_body(table, want, 1), deadline)
            except ReplayTimeout as timeout_error:
                if not out:
                    raise
                raise ReplayTimeout(str(timeout_error), out) from None
            out.extend(self._samples(reply))
        return out

    def sampler(self, table: str, batch_size: int, prefetch: int = 4,
                timeout: Optional[float] = None) -> Iterator[list[Sample]]:
        """Batches of `batch_size` Samples without end, with `prefetch` sample
        requests out at once over the shards (Reverb's
        max_in_flight_samples_per_worker). `timeout`: the longest wait for
        one batch (ReplayTimeout). On a queue or a stack, where a sample takes
        its items out, nothing is prefetched: each batch is one sample() when
        the generator asks for it, so closing the generator loses no item."""
        kinds = {info.tables[table].kind for info in self.info(timeout) if table in info.tables}
        if kinds & {"queue", "stack"}:
            while True:
                yield self.sample(table, batch_size, timeout)
        shards = len(self.shards)
        pending: collections.deque[courier.Future] = collections.deque()
        carry: list[Sample] = []
        last = _Deadline(timeout)
        while True:
            while len(pending) < max(1, prefetch):
                shard, wait_ms = self._next_shard(), _PARK_MS
                body = self._caller + self._sample_body(table, batch_size, 1)(wait_ms)
                try:
                    future = self.shards[shard].call_async("sample", body, timeout=wait_ms / 1000 + _MARGIN)
                except courier.CourierError as error:
                    if error.code not in _RETRIED:
                        raise ReplayError(error.code, "sample on shard %d of %r: %s" %
                                          (shard, self.node, error)) from error
                    time.sleep(0.05)
                    continue
                pending.append(future)
            future = pending.popleft()
            try:
                reply = _parse(future.result())
            except courier.CourierError as error:
                if error.code not in _RETRIED:
                    raise ReplayError(error.code, "sample on %r: %s" % (self.node, error)) from error
                reply = None
            if reply is not None:
                carry.extend(self._samples(reply))
            while len(carry) >= batch_size:
                batch, carry = carry[:batch_size], carry[batch_size:]
                yield batch
                last = _Deadline(timeout)
            if reply is None and last.passed():
                raise ReplayTimeout("sampler of %r on %d shard(s): no batch of %d before the timeout" %
                                    (table, shards, batch_size))

    # --- the rest -----------------------------------------------------------

    def _mutate(self, table: str, updates: Mapping[int, float], deletes: Sequence[int],
                timeout: Optional[float]) -> tuple[int, int]:
        by_shard: collections.defaultdict[int, tuple[list[tuple[int, float]], list[int]]] = \
            collections.defaultdict(lambda: ([], []))
        for key, priority in updates.items():
            by_shard[self._shard_of(key)][0].append((key, float(priority)))
        for key in deletes:
            by_shard[self._shard_of(key)][1].append(key)
        deadline, done = _Deadline(timeout), [0, 0]
        for shard, (shard_updates, shard_deletes) in sorted(by_shard.items()):
            for start in range(0, max(len(shard_updates), len(shard_deletes)), _MAX_KEYS):
                ups, dels = shard_updates[start:start + _MAX_KEYS], shard_deletes[start:start + _MAX_KEYS]
                body = b"".join([_text(table), _u32.pack(len(ups))] +
                                [_u64.pack(k) + _f64.pack(p) for k, p in ups] +
                                [_u32.pack(len(dels))] + [_u64.pack(k) for k in dels])
                reply = cast(_Reply, self._call(shard, "mutate", body, deadline))
                done[0] += reply.u32()
                done[1] += reply.u32()
        return (done[0], done[1])

    def update_priorities(self, table: str, updates: Mapping[int, float],
                          timeout: Optional[float] = None) -> int:
        """Sets the priority of each key of `updates` ({key: priority}) in
        `table`; keys no longer there are ignored. Returns how many were
        updated."""
        return self._mutate(table, dict(updates), [], timeout)[0]

    def delete(self, table: str, keys: Iterable[int], timeout: Optional[float] = None) -> int:
        """Removes the items of `keys` from `table`; returns how many were there."""
        return self._mutate(table, {}, list(keys), timeout)[1]

    def reset(self, table: str, timeout: Optional[float] = None) -> None:
        """Removes every item of `table` on every shard and zeroes its rate
        limiter's counters."""
        self._all_shards("reset", _text(table), timeout)

    def checkpoint(self, timeout: Optional[float] = None) -> list[str]:
        """Every shard writes a checkpoint now; returns their paths."""
        return [reply.text() for reply in self._all_shards("checkpoint", b"", timeout)]

    def info(self, timeout: Optional[float] = None) -> list[ShardInfo]:
        """A ShardInfo per shard, in shard order."""
        out = []
        for reply in self._all_shards("info", b"", timeout):
            head = (reply.u32(), reply.u32(), reply.u64(), reply.u64(), reply.u64(), reply.text())
            tables = {}
            for _ in range(reply.u32()):
                name, kind = reply.text(), reply.u8()
                sampler, sampler_exponent = reply.u8(), reply.f64()
                remover, remover_exponent = reply.u8(), reply.f64()
                rest = (reply.u64(), reply.u32(), reply.u64(), reply.u64(), reply.f64(), reply.i64(),
                        reply.f64(), reply.f64(), reply.i64(), reply.i64(), reply.i64(), reply.u32(),
                        reply.u32(), reply.u64())
                tables[name] = TableInfo(name, _name(_KINDS, kind), _name(_SELECTORS, sampler),
                                         sampler_exponent, _name(_SELECTORS, remover), remover_exponent,
                                         *rest)
            out.append(ShardInfo(*head, tables))
        return out

    def server_info(self, timeout: Optional[float] = None) -> dict[str, TableInfo]:
        """{table name: TableInfo} for the whole node, as Reverb's
        Client.server_info(): max_size, size, leased, the rate limiter's
        counters (inserts, samples, deletes) and the parked requests summed
        over the shards; the selectors, max_times_sampled, the limiter's
        numbers and lease_ms as configured (each shard has its own limiter
        with them). info() has each shard's own report."""
        merged = {}
        for shard in self.info(timeout):
            for name, table in shard.tables.items():
                if name not in merged:
                    merged[name] = table
                    continue
                merged[name] = merged[name]._replace(
                    **{field: getattr(merged[name], field) + getattr(table, field) for field in _SUMMED})
        return merged

    def size(self, table: str, timeout: Optional[float] = None) -> int:
        """Items in `table` over every shard (leased work items included)."""
        return sum(shard.tables[table].size for shard in self.info(timeout) if table in shard.tables)

    # --- work tables --------------------------------------------------------

    def lease(self, table: str, n: int = 1, timeout: Optional[float] = None) -> list[Lease]:
        """Up to n items of work table `table`, each leased to this task: a
        list of Lease(key, times_leased, data, token). ack() them (pass the
        Lease objects) when done. The first lease() of a client in a
        relaunched task first returns the leases its earlier attempts held."""
        self._start_journal()
        body: Callable[[int], bytes] = \
            lambda wait_ms: _text(table) + _u32.pack(n) + _u32.pack(wait_ms)  # noqa: E731
        reply = self._pull("lease", body, _Deadline(timeout))
        leases = []
        for _ in range(reply.u32()):
            key, times = reply.u64(), reply.u32()
            token = reply._bytes(16)
            leases.append(Lease(key, times, reply.blob(), token))
        if self._journal is not None and leases:
            self._journal.add([(self._shard_of(lease.key), table, lease.key, lease.token)
                               for lease in leases])
        return leases

    def _start_journal(self) -> None:
        """Opens this client's lease journal (inside slipway) and returns the
        leases earlier attempts of this task journaled, once; best effort: a
        lease not returned comes back when it expires."""
        with self._journal_lock:
            if self._journal_started:
                return
            self._journal_started = True
            node, replica, attempt = self._task
            self._journal = _LeaseJournal.open(self.node, node, replica, attempt, self._client_id)
            earlier = self._journal.take_predecessors() if self._journal is not None else []
        groups: collections.defaultdict[tuple[int, str], list[tuple[int, bytes]]] = \
            collections.defaultdict(list)
        for shard, table, key, token in earlier:
            groups[(shard, table)].append((key, token))
        for (shard, table), refs in sorted(groups.items()):
            if shard < len(self.shards):
                try:
                    self._call(shard, "nack", self._leases_body(table, refs), _Deadline(_MARGIN))
                except ReplayError:
                    pass

    @staticmethod
    def _leases_body(table: str, refs: Sequence[tuple[int, bytes]]) -> bytes:
        return _text(table) + _u32.pack(len(refs)) + b"".join(_u64.pack(k) + t for k, t in refs)

    def _leases_call(self, method: str, table: str, leases: Iterable[Union[Lease, tuple[int, bytes]]],
                     timeout: Optional[float]) -> int:
        by_shard: collections.defaultdict[int, list[tuple[int, bytes]]] = collections.defaultdict(list)
        for key, token in _lease_refs(leases):
            by_shard[self._shard_of(key)].append((key, token))
        deadline, count = _Deadline(timeout), 0
        for shard, refs in sorted(by_shard.items()):
            for start in range(0, len(refs), _MAX_KEYS):
                chunk = refs[start:start + _MAX_KEYS]
                count += cast(_Reply, self._call(shard, method, self._leases_body(table, chunk),
                                                 deadline)).u32()
                if self._journal is not None:
                    self._journal.remove([key for key, _ in chunk])
        return count

    def ack(self, table: str, leases: Iterable[Union[Lease, tuple[int, bytes]]],
            timeout: Optional[float] = None) -> int:
        """The work of these leased items is done: they leave the table.
        `leases`: the Lease objects lease() returned (or (key, token)
        pairs); a key without its lease's token is not counted. A token of
        an earlier lease of the item counts too (its lease expired, the work
        was done). Returns how many left."""
        return self._leases_call("ack", table, leases, timeout)

    def nack(self, table: str, leases: Iterable[Union[Lease, tuple[int, bytes]]],
             timeout: Optional[float] = None) -> int:
        """These leased items go back to the queue (each with the token of
        its current lease). Returns how many went back."""
        return self._leases_call("nack", table, leases, timeout)

    def close(self) -> None:
        """Drops the handles, and the endpoint when the client made it; the
        lease journal's file goes."""
        with self._lock:
            for handle in self._shards or []:
                handle.close()
            self._shards = None
        if self._journal is not None:
            self._journal.close()
        if self._own_endpoint:
            self._endpoint.close()


def _name(names: Sequence[str], index: int) -> str:
    return names[index] if index < len(names) else str(index)


class Writer:
    """Pipelined inserts into one table (Client.writer). Each request goes to
    the next shard; a request the server parks (rate limiter) keeps its place
    in the window, so append() blocks once max_in_flight are out. An insert
    whose reply did not come is sent again with its sequence number."""

    def __init__(self, client: Client, table: str, max_in_flight: int = 8, batch_size: int = 1,
                 priority_tables: Optional[Iterable[str]] = None, timeout: Optional[float] = None) -> None:
        if max_in_flight < 1 or batch_size < 1:
            raise ReplayError("invalid", "max_in_flight and batch_size must be at least 1")
        self._client, self._table = client, table
        self._tables = list(priority_tables or [table])
        self._max_in_flight, self._batch_size, self._timeout = max_in_flight, batch_size, timeout
        self._items: list[_Data] = []
        self._priorities: list[float] = []
        # [shard, seq, items, priorities, deadline, future] of each insert out
        self._in_flight: collections.deque[list[Any]] = collections.deque()
        self.keys_written = 0

    def append(self, data: _Data, priority: float = 1.0) -> None:
        """Adds one item; sends the batch when it is full."""
        self._items.append(data)
        self._priorities.append(priority)
        if len(self._items) >= self._batch_size:
            self._send()

    def _start(self, shard: int, seq: int, items: Sequence[_Data], priorities: Sequence[float],
               deadline: _Deadline) -> courier.Future:
        wait_ms = deadline.wait_ms()
        body = self._client._caller + self._client._insert_body(
            seq, wait_ms, items, {t: priorities for t in self._tables})
        return self._client.shards[shard].call_async("insert", body, timeout=wait_ms / 1000 + _MARGIN)

    def _send(self) -> None:
        if not self._items:
            return
        while len(self._in_flight) >= self._max_in_flight:
            self._finish_oldest()
        items, priorities = self._items, self._priorities
        self._items, self._priorities = [], []
        shard, seq, deadline = self._client._next_shard(), self._client._next_seq(), _Deadline(self._timeout)
        request: list[Any] = [shard, seq, items, priorities, deadline, None]
        request[5] = self._start(shard, seq, items, priorities, deadline)
        self._in_flight.append(request)

    def _finish_oldest(self) -> None:
        shard, seq, items, priorities, deadline, future = self._in_flight.popleft()
        while True:
            try:
                reply = _parse(future.result())
            except courier.CourierError as error:
                if error.code not in _RETRIED or deadline.passed():
                    raise ReplayError(error.code, "insert on shard %d of %r: %s" %
                                      (shard, self._client.node, error)) from error
                reply = None
                time.sleep(0.05)
            if reply is not None:
                self.keys_written += reply.u32()
                return
            if deadline.passed():
                raise ReplayTimeout("writer of %r: an insert was not taken before the timeout" % self._table)
            future = self._start(shard, seq, items, priorities, deadline)

    def flush(self) -> None:
        """Sends what is buffered and waits until every insert was taken."""
        self._send()
        while self._in_flight:
            self._finish_oldest()

    def close(self) -> None:
        self.flush()

    def __enter__(self) -> "Writer":
        return self

    def __exit__(self, exc_type: Optional[type], *_: object) -> None:
        if exc_type is None:
            self.flush()


# Objects travel pickled and signed with the program's secret (rpc.py's
# seal/open: HMAC-SHA256 over a purpose, a name and the body, checked
# before anything is unpickled), so that nothing from outside the program
# is ever unpickled: queue items, pool tasks and pool results alike.
_QUEUE_ITEM, _POOL_TASK, _POOL_RESULT = b"queue-item:", b"pool-task:", b"pool-result:"


def _sealed(purpose: bytes, name: str, obj: object) -> bytes:
    from . import rpc  # noqa: PLC0415 (rpc imports this module's neighbours)
    return rpc._seal(purpose, name, obj)


def _opened(purpose: bytes, name: str, data: bytes) -> Any:
    from . import rpc  # noqa: PLC0415
    return rpc._open(purpose, name, data)


class Queue:
    """A queue of pickled objects over a `kind = "queue"` (or "stack") table
    of replay node `node`, shared by every process that opens it: FIFO per
    shard (a node with several shards spreads puts over them)."""

    def __init__(self, node: str, table: str, client: Optional[Client] = None) -> None:
        self._client = client if client is not None else Client(node)
        self._table = table

    def put(self, obj: object, timeout: Optional[float] = None) -> None:
        """Puts one object; waits while the table is full, up to `timeout`."""
        self._client.insert(_sealed(_QUEUE_ITEM, self._table, obj), {self._table: 1.0}, timeout)

    def put_many(self, objs: Iterable[object], timeout: Optional[float] = None) -> None:
        sealed = [_sealed(_QUEUE_ITEM, self._table, o) for o in objs]
        if sealed:
            self._client.insert_many(sealed, {self._table: 1.0}, timeout)

    def get(self, timeout: Optional[float] = None) -> Any:
        """The next object; Empty when none came within `timeout` seconds
        (None: wait without end, 0: only one that is there now)."""
        return self.get_many(1, timeout)[0]

    def get_many(self, n: int, timeout: Optional[float] = None) -> list[Any]:
        """Up to n objects (at least one) from one shard."""
        deadline = _Deadline(timeout)
        try:
            reply = self._client._pull("sample", self._client._sample_body(self._table, n, 1), deadline)
        except ReplayTimeout:
            raise Empty("queue %r of %r: nothing came before the timeout" %
                        (self._table, self._client.node)) from None
        return [_opened(_QUEUE_ITEM, self._table, s.data) for s in self._client._samples(reply)]

    def qsize(self) -> int:
        return self._client.size(self._table)


class Pool(_Closing):
    """multiprocessing.Pool's map over the tasks of a node that serve a
    `kind = "work"` table (Fiber's pool, with the replay node as its pending
    table). On the caller: map(fn, items) and imap_unordered(fn, items),
    fn being a name the workers serve or a function whose __name__ they
    serve. On every task of `worker_node`: serve({name: function}).

    A worker leases one item at a time, runs it and reports the result
    straight to the caller (through its courier endpoint), then acks the
    item. An item whose worker dies returns to the queue when its lease
    expires (the table's `lease`; make it longer than the longest task) or
    when that worker's next attempt first calls: a task may run twice, so
    use pools for idempotent work only."""

    def __init__(self, node: str, table: str, worker_node: Optional[str] = None,
                 endpoint: Optional[courier.Endpoint] = None) -> None:
        self.node, self.table, self.worker_node = node, table, worker_node
        self._endpoint = endpoint if endpoint is not None else courier.Endpoint()
        self._own_endpoint = endpoint is None
        if self._own_endpoint:
            _close_at_exit(self, self._endpoint)
        self._client = Client(node, endpoint=self._endpoint)
        self._results: dict[tuple[int, int], tuple[bool, Any]] = {}
        self._arrived = threading.Condition()
        self._registered = False
        self._pool_id = random.SystemRandom().getrandbits(63)
        self._next_task = 0
        self._stop = threading.Event()

    # --- the caller ---------------------------------------------------------

    def _receive(self, request: bytes) -> bytes:
        task_id, ok, value = _opened(_POOL_RESULT, _RESULT_METHOD, request)
        with self._arrived:
            self._results.setdefault(task_id, (ok, value))  # a task run twice: the first result
            self._arrived.notify_all()
        return b""

    def _submit(self, fn: Union[str, Callable[..., Any]], items: Iterable[Any]) -> list[tuple[int, int]]:
        if not self._registered:
            self._endpoint.register(_RESULT_METHOD, self._receive)
            self._registered = True
        name = fn if isinstance(fn, str) else fn.__name__
        address = self._endpoint.address
        ids: list[tuple[int, int]] = []
        payloads: list[_Data] = []
        for item in items:
            self._next_task += 1
            task_id = (self._pool_id, self._next_task)
            ids.append(task_id)
            payloads.append(_sealed(_POOL_TASK, self.table, (task_id, address, name, item)))
        for start in range(0, len(payloads), 256):
            self._client.insert_many(payloads[start:start + 256], {self.table: 1.0})
        return ids

    def _take(self, task_id: tuple[int, int]) -> Any:
        ok, value = self._results.pop(task_id)
        if not ok:
            raise PoolTaskError(value)
        return value

    def imap_unordered(self, fn: Union[str, Callable[..., Any]], items: Iterable[Any],
                       timeout: Optional[float] = None) -> Iterator[Any]:
        """Results as they come, in any order; `timeout`: the longest wait
        for the next one (ReplayTimeout)."""
        waiting = set(self._submit(fn, items))
        while waiting:
            deadline = _Deadline(timeout)
            with self._arrived:
                while not waiting & self._results.keys():
                    if deadline.passed():
                        raise ReplayTimeout("pool %r: no result within %ss (%d tasks left; do workers "
                                            "of %r serve it?)" % (self.table, timeout, len(waiting),
                                                                 self.worker_node or "?"))
                    left = deadline.left()
                    self._arrived.wait(0.5 if left is None else min(0.5, left))
                done = next(iter(waiting & self._results.keys()))
                waiting.discard(done)
                value = self._take(done)
            yield value

    def map(self, fn: Union[str, Callable[..., Any]], items: Iterable[Any],
            timeout: Optional[float] = None) -> list[Any]:
        """[fn(item) for item in items], run by the workers; raises
        PoolTaskError for a task that raised, ReplayTimeout when `timeout`
        seconds pass without a result."""
        ids = self._submit(fn, list(items))
        deadline = _Deadline(timeout)
        with self._arrived:
            while not all(i in self._results for i in ids):
                if deadline.passed():
                    missing = sum(1 for i in ids if i not in self._results)
                    raise ReplayTimeout("pool %r: %d of %d results missing after %ss" %
                                        (self.table, missing, len(ids), timeout))
                left = deadline.left()
                self._arrived.wait(0.5 if left is None else min(0.5, left))
            return [self._take(i) for i in ids]

    # --- the workers --------------------------------------------------------

    def serve(self, functions: Mapping[str, Callable[[Any], Any]], max_tasks: Optional[int] = None) -> int:
        """Runs the pool's tasks with `functions` ({name: function}) until
        stop(), SIGTERM or SIGINT (or `max_tasks` tasks); returns how many it
        ran. A shard that is restarting is waited for (its tasks come back
        to its queue); a task that is not a signed task of this program is
        dropped with a line on stderr, never run; once told to stop it asks
        for no more (at most the lease wait it is in, 1 s, and the task it
        runs)."""
        here = os.environ.get("SLIPWAY_NODE")
        if self.worker_node and here and here != self.worker_node:
            raise ReplayError("invalid", "this task is of node %r, but pool %r is served by node %r" %
                              (here, self.table, self.worker_node))
        if threading.current_thread() is threading.main_thread():
            for sig in (signal.SIGTERM, signal.SIGINT):
                signal.signal(sig, lambda *_: self._stop.set())
        self._client._stopping = self._stop
        try:
            return self._serve(functions, max_tasks, here)
        finally:
            self._client._stopping = None

    def _serve(self, functions: Mapping[str, Callable[[Any], Any]], max_tasks: Optional[int],
               here: Optional[str]) -> int:
        callers: dict[bytes, courier.Handle] = {}
        ran = 0
        while not self._stop.is_set() and (max_tasks is None or ran < max_tasks):
            try:
                leased = self._client.lease(self.table, 1, timeout=1.0)
            except ReplayTimeout:
                continue
            except ReplayError as error:
                if error.code not in _RETRIED:
                    raise
                time.sleep(0.2)  # a shard restarting: ask again (the loop's own retry)
                continue
            for lease in leased:
                try:
                    task_id, address, name, item = _opened(_POOL_TASK, self.table, lease.data)
                except Exception as error:  # noqa: BLE001 (unsigned, or not a pool task)
                    print("slipway pool %r: dropped item %d, which is not a task of this program's pools "
                          "(%s: %s); it is not run" % (self.table, lease.key, type(error).__name__, error),
                          file=sys.stderr, flush=True)
                    self._done(lease)
                    continue
                result: tuple[Any, bool, Any]
                try:
                    result = (task_id, True, functions[name](item))
                except BaseException:  # the caller gets it as PoolTaskError
                    result = (task_id, False, "task %r on %s.%s:\n%s" % (
                        name, here or "?", os.environ.get("SLIPWAY_REPLICA", "?"), traceback.format_exc()))
                try:
                    report = _sealed(_POOL_RESULT, _RESULT_METHOD, result)
                except Exception as error:  # noqa: BLE001 (an unpicklable result)
                    report = _sealed(_POOL_RESULT, _RESULT_METHOD, (task_id, False, "task %r returned what pickle cannot "
                                                           "send: %s" % (name, error)))
                try:
                    if address not in callers:
                        callers[address] = self._endpoint.connect(address, "pool caller")
                    callers[address].call(_RESULT_METHOD, report, timeout=30.0)
                except courier.CourierError:
                    callers.pop(address, None)  # the caller is gone: nobody waits for it
                self._done(lease)
                ran += 1
        return ran

    def _done(self, lease: Lease) -> None:
        """Acks `lease`; one its shard lost (restarted) is not acked, and runs again."""
        try:
            self._client.ack(self.table, [lease], timeout=5.0)
        except ReplayError as error:
            if error.code not in _RETRIED:
                raise

    def stop(self) -> None:
        """Ends serve() after the task it runs."""
        self._stop.set()

    def close(self) -> None:

        self._client.close()
        if self._own_endpoint:
            self._endpoint.close()
