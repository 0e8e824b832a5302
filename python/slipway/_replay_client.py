"""The replay client: every shard of a replay node, its calls and their
retries (slipway.replay's Client). Private: import slipway.replay."""

import collections
import os
import random
import threading
import time
import weakref
from typing import Any, Callable, Iterable, Iterator, Mapping, Optional, Sequence, TypeVar, Union, cast

from . import courier
from ._replay_journal import _LeaseJournal
from ._replay_protocol import (_KINDS, _MARGIN, _MAX_ITEMS, _MAX_KEYS, _PARK_MS, _RETRIED, _SELECTORS, _SUMMED,
                               _VERSION, Lease, ReplayError, ReplayTimeout, Sample, ShardInfo, TableInfo, _blob,
                               _Data, _Deadline, _f64, _lease_refs, _name, _parse, _Reply, _text, _u8, _u16, _u32,
                               _u64)
from ._replay_writer import Writer

_Self = TypeVar("_Self", bound="_Closing")


def _close_at_exit(owner: object, endpoint: courier.Endpoint) -> weakref.finalize:
    """Closes `endpoint` when `owner` is collected or, at the latest, when
    the interpreter exits (atexit, while the endpoint's threads can still
    enter Python): an endpoint left open into the interpreter's
    finalization can abort the process ("FATAL: exception not rethrown")
    when its progress thread calls a handler then."""
    return weakref.finalize(owner, endpoint.close)



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
