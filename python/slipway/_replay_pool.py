"""Objects over replay tables: a Queue of pickled objects and a Pool of
workers (slipway.replay's Queue and Pool). Private: import slipway.replay."""

import os
import random
import signal
import sys
import threading
import time
import traceback
from typing import Any, Callable, Iterable, Iterator, Mapping, Optional, Union

from . import courier
from ._replay_client import Client, _close_at_exit, _Closing
from ._replay_protocol import (_RESULT_METHOD, _RETRIED, Empty, Lease, PoolTaskError, ReplayError, ReplayTimeout,
                               _Data, _Deadline)

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
