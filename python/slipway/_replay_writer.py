"""Pipelined inserts of a replay client (slipway.replay's Writer).
Private: import slipway.replay."""

import collections
import time
from typing import TYPE_CHECKING, Any, Iterable, Optional, Sequence

from . import courier
from ._replay_protocol import _MARGIN, _RETRIED, ReplayError, ReplayTimeout, _Data, _Deadline, _parse

if TYPE_CHECKING:
    from ._replay_client import Client


class Writer:
    """Pipelined inserts into one table (Client.writer). Each request goes to
    the next shard; a request the server parks (rate limiter) keeps its place
    in the window, so append() blocks once max_in_flight are out. An insert
    whose reply did not come is sent again with its sequence number."""

    def __init__(self, client: "Client", table: str, max_in_flight: int = 8, batch_size: int = 1,
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
