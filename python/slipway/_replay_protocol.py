"""What the replay client and the service exchange (docs/replay.md): the
protocol's constants, the records and errors callers see (re-exported by
slipway.replay), the request fields' encodings, the reader of a reply
body, and a caller's deadline. Private: import slipway.replay."""

import queue as _queue
import struct
import time
from typing import Any, Iterable, NamedTuple, Optional, Sequence, Union, cast

# Item data: any buffer (str is sent as UTF-8).
_Data = Union[bytes, bytearray, memoryview, str]

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



def _name(names: Sequence[str], index: int) -> str:
    return names[index] if index < len(names) else str(index)
