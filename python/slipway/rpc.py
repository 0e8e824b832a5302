"""Python objects over courier RPC for slipway's program API: a CourierNode's
public methods served with pickled arguments and results, the clients that
call them (`client.method(...)`, `client.futures.method(...)`), and
`batched_handler`.

Trust model. Pickle runs code while it loads, so a pickled request or reply
is loaded only when it is signed with the program's secret: every request
and reply carries HMAC-SHA256(SLIPWAY_TOKEN, direction | method | body)
before its pickled body, and the receiver checks it (hmac.compare_digest)
before unpickling. SLIPWAY_TOKEN is the secret slipway gives every task of
one program (docs/contract.md: never in argv or logs), so only the tasks of
the same program can make a request that is unpickled, and a caller unpickles
only replies signed the same way. Beneath it, courier endpoints admit only
callers that prove the same secret in their handshake (docs/channels.md,
"Who may call"), so an outsider's request is dropped before it is read; the
signature still covers each message end to end.
What the signature does not give: secrecy (payloads travel in clear, as
every courier payload does), nor protection from a captured message
being sent again by someone on the network path (no nonce); anyone holding
the token (every task of the program, the user who launched it) is trusted
with code execution in every task of it, as with Launchpad.
"""

import concurrent.futures
import hashlib
import hmac
import os
import pickle
import queue
import threading
import time
import traceback
from typing import Any, Callable, Optional, TypeVar

from . import courier

_F = TypeVar("_F", bound=Callable[..., Any])

__all__ = ["RemoteError", "CourierClient", "batched_handler", "serve_object", "process_endpoint",
           "public_methods", "FOREVER"]

_MAGIC = b"SWP1"
_REQUEST, _REPLY = b"q", b"r"
FOREVER = 100 * 365 * 86400.0   # "no limit" as courier timeouts go (seconds)
_endpoint: Optional[courier.Endpoint] = None
_endpoint_lock = threading.Lock()
_executor: Optional[concurrent.futures.ThreadPoolExecutor] = None


class RemoteError(Exception):
    """A remote method raised an exception that could not be re-created here
    (not picklable); `type_name` and `remote_traceback` say what it was."""

    def __init__(self, type_name: str, message: str, remote_traceback: str) -> None:
        super().__init__("%s: %s\n\nRemote traceback:\n%s" % (type_name, message, remote_traceback))
        self.type_name = type_name
        self.remote_traceback = remote_traceback


class _RemoteTraceback(Exception):
    """The callee's traceback, chained as the __cause__ of a re-raised exception."""

    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.text = text

    def __str__(self) -> str:
        return "\n\nRemote traceback (in the callee):\n" + self.text


def _key() -> bytes:
    token = os.environ.get("SLIPWAY_TOKEN")
    if not token:
        raise courier.CourierError(
            "invalid_argument",
            "SLIPWAY_TOKEN is not set: slipway's Python RPC signs every message with the "
            "program's secret, which slipway gives its tasks; run this code as a node of a "
            "program (sw.launch) instead of directly")
    return token.encode("utf-8")


def _dumps(obj: object) -> bytes:
    """pickle, or Debian's cloudpickle (python3-cloudpickle) when it is
    installed and plain pickle cannot (lambdas, closures); pickle.loads
    reads both where cloudpickle is importable."""
    try:
        return pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    except (pickle.PicklingError, AttributeError, TypeError) as exc:
        try:
            import cloudpickle
        except ImportError:
            raise exc from None
        data: bytes = cloudpickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
        return data


def _seal(direction: bytes, method: str, obj: object) -> bytes:
    body = _dumps(obj)
    mac = hmac.new(_key(), direction + method.encode("utf-8") + b"\0" + body, hashlib.sha256)
    return _MAGIC + mac.digest() + body


def _open(direction: bytes, method: str, data: bytes) -> Any:
    """Checks the signature and only then unpickles; refuses anything else."""
    data = bytes(data)
    if len(data) < len(_MAGIC) + 32 or not data.startswith(_MAGIC):
        raise PermissionError("a %s for %r is not a signed slipway message: refused unread"
                              % ("request" if direction == _REQUEST else "reply", method))
    mac, body = data[4:36], data[36:]
    expected = hmac.new(_key(), direction + method.encode("utf-8") + b"\0" + body,
                        hashlib.sha256).digest()
    if not hmac.compare_digest(mac, expected):
        raise PermissionError("a %s for %r is not signed with this program's secret "
                              "(SLIPWAY_TOKEN): refused without unpickling it"
                              % ("request" if direction == _REQUEST else "reply", method))
    return pickle.loads(body)


def process_endpoint(handler_threads: Optional[int] = None) -> courier.Endpoint:
    """This process's courier endpoint, made on first use (handler_threads
    only counts then: a CourierNode's task makes it first)."""
    global _endpoint
    with _endpoint_lock:
        if _endpoint is None:
            _endpoint = courier.Endpoint(handler_threads=handler_threads or 4)
        return _endpoint


def _executor_for_futures() -> concurrent.futures.ThreadPoolExecutor:
    global _executor
    with _endpoint_lock:
        if _executor is None:
            _executor = concurrent.futures.ThreadPoolExecutor(
                max_workers=64, thread_name_prefix="slipway-futures")
        return _executor


# --- the callee ---------------------------------------------------------------

def public_methods(obj: object) -> list[str]:
    """Names of the methods a CourierNode serves: public, callable, not run()."""
    names = []
    for name in dir(type(obj)):
        if name.startswith("_") or name == "run":
            continue
        if callable(getattr(obj, name, None)):
            names.append(name)
    return names


def _failure(exc: BaseException) -> tuple[bool, tuple[str, str, str, Optional[bytes]]]:
    text = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    pickled: Optional[bytes]
    try:
        pickled = _dumps(exc)
        pickle.loads(pickled)   # some exceptions pickle but do not load back
    except Exception:
        pickled = None
    return (False, (type(exc).__qualname__, str(exc), text, pickled))


def _handler(name: str, fn: Callable[..., Any]) -> Callable[[bytes], bytes]:
    def handle(request: bytes) -> bytes:
        try:
            args, kwargs = _open(_REQUEST, name, request)
        except PermissionError:
            raise   # courier answers remote_error with the message; nothing was unpickled
        outcome: tuple[bool, Any]
        try:
            outcome = (True, fn(*args, **kwargs))
        except BaseException as exc:  # the caller re-raises it
            outcome = _failure(exc)
        try:
            return _seal(_REPLY, name, outcome)
        except Exception as exc:  # the result does not pickle: say so to the caller
            return _seal(_REPLY, name, _failure(TypeError(
                "%s() returned %s, which cannot be pickled: %s" % (name, type(outcome[1]).__name__, exc))))
    return handle


# One call of a batched method: its arguments and the slot its result goes to.
_Call = tuple[tuple[Any, ...], dict[str, Any], dict[str, Any]]


class _Batcher:

    """Gathers concurrent calls of one batched method into one call with lists."""

    def __init__(self, fn: Callable[..., Any], batch_size: int, timeout: Optional[float]) -> None:
        self._fn, self._size, self._timeout = fn, batch_size, timeout
        self._calls: "queue.Queue[_Call]" = queue.Queue()
        threading.Thread(target=self._loop, daemon=True, name="slipway-batch").start()

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        slot: dict[str, Any] = {"done": threading.Event()}
        self._calls.put((args, kwargs, slot))
        slot["done"].wait()
        if "error" in slot:
            raise slot["error"]
        return slot["value"]

    def _loop(self) -> None:
        while True:
            batch = [self._calls.get()]
            ends = time.monotonic() + (self._timeout or 0)
            while len(batch) < self._size:
                left = ends - time.monotonic()
                try:
                    batch.append(self._calls.get(timeout=left) if left > 0
                                 else self._calls.get_nowait())
                except queue.Empty:
                    break
            self._run(batch)

    def _run(self, batch: "list[_Call]") -> None:
        first_args, first_kwargs = batch[0][0], batch[0][1]
        try:
            for args, kwargs, _ in batch:
                if len(args) != len(first_args) or set(kwargs) != set(first_kwargs):
                    raise TypeError("calls of a batched method must pass the same arguments (%d "
                                    "positional and keywords %s); one passed %d and %s"
                                    % (len(first_args), sorted(first_kwargs), len(args), sorted(kwargs)))
            columns = [[call[0][i] for call in batch] for i in range(len(first_args))]
            keywords = {k: [call[1][k] for call in batch] for k in first_kwargs}
            results = list(self._fn(*columns, **keywords))
            if len(results) != len(batch):
                raise ValueError("a batched method given %d calls returned %d results; return "
                                 "one per call" % (len(batch), len(results)))
            for (_, _, slot), value in zip(batch, results):
                slot["value"] = value
        except BaseException as exc:
            for _, _, slot in batch:
                slot["error"] = exc
        for _, _, slot in batch:
            slot["done"].set()


def batched_handler(batch_size: int, timeout: Optional[float] = 0.2) -> Callable[[_F], _F]:
    """Marks a CourierNode method whose concurrent calls are gathered into
    one call: each argument arrives as a list (one entry per call, up to
    batch_size), and the method returns a sequence with one result per call.
    A batch goes as soon as it is full, or `timeout` seconds after its first
    call. An exception fails every call of the batch."""
    if not isinstance(batch_size, int) or batch_size < 1:
        raise ValueError("batched_handler: batch_size must be an integer of at least 1, not %r"
                         % (batch_size,))

    def mark(fn: _F) -> _F:
        setattr(fn, "_slipway_batch", (batch_size, timeout))
        return fn
    return mark


def handler_threads_for(obj: object) -> int:
    """Enough handler threads that every batched method can fill a batch."""
    total = 4
    for name in public_methods(obj):
        batch = getattr(getattr(obj, name), "_slipway_batch", None)
        if batch:
            total += batch[0]
    return total


def handler_threads_for_class(cls: object) -> int:
    total = 4
    for name in dir(cls):
        batch = getattr(getattr(cls, name, None), "_slipway_batch", None)
        if batch and not name.startswith("_"):
            total += batch[0]
    return total


def serve_object(obj: object, endpoint: courier.Endpoint) -> list[str]:
    """Registers every public method of obj on endpoint (not published)."""
    names = public_methods(obj)
    for name in names:
        fn = getattr(obj, name)
        batch = getattr(fn, "_slipway_batch", None)
        if batch:
            fn = _Batcher(fn, *batch)
        endpoint.register(name, _handler(name, fn))
    return names


# --- the caller ---------------------------------------------------------------

class CourierClient:
    """A client of one replica of a CourierNode: client.method(*args, **kwargs)
    calls it and returns its result (or raises its exception, with the
    callee's traceback as __cause__); client.futures.method(...) returns a
    concurrent.futures.Future. The address is resolved at the first call,
    which waits for the callee to publish it. `timeout` (seconds, None: no
    limit) bounds each call."""

    def __init__(self, node: str, replica: int = 0, endpoint: Optional[courier.Endpoint] = None,
                 timeout: Optional[float] = None) -> None:
        self._node, self._replica, self._timeout = node, replica, timeout
        self._endpoint = endpoint
        self._handle: Optional[courier.Handle] = None
        self._lock = threading.Lock()
        self.futures = _Futures(self)

    def __repr__(self) -> str:
        return "<slipway CourierClient %s.%d>" % (self._node, self._replica)

    def _resolved(self) -> courier.Handle:
        with self._lock:
            if self._handle is None:
                endpoint = self._endpoint or process_endpoint()
                self._handle = endpoint.resolve(self._node, self._replica)
            return self._handle

    def _call(self, method: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        request = _seal(_REQUEST, method, (args, kwargs))
        timeout = FOREVER if self._timeout is None else self._timeout
        try:
            reply = self._resolved().call(method, request, timeout=timeout)
        except courier.CourierError as exc:
            if exc.code == "no_such_method":
                raise AttributeError("%s.%d has no public method %r (%s)"
                                     % (self._node, self._replica, method, exc)) from None
            raise
        ok, value = _open(_REPLY, method, reply)
        if ok:
            return value
        type_name, message, text, pickled = value
        if pickled is not None:
            raised: object
            try:
                raised = pickle.loads(pickled)
            except Exception:
                raised = None
            if isinstance(raised, BaseException):
                raise raised from _RemoteTraceback(text)
        raise RemoteError(type_name, message, text)

    def __getattr__(self, method: str) -> Callable[..., Any]:
        if method.startswith("_"):
            raise AttributeError(method)
        return lambda *args, **kwargs: self._call(method, args, kwargs)

    def __reduce__(self) -> tuple[type, tuple[str, int, None, Optional[float]]]:
        # a client passed on in a call stays a client of the same node
        return (CourierClient, (self._node, self._replica, None, self._timeout))


class _Futures:
    def __init__(self, client: CourierClient) -> None:
        self._client = client

    def __getattr__(self, method: str) -> Callable[..., "concurrent.futures.Future[Any]"]:
        if method.startswith("_"):
            raise AttributeError(method)
        client = self._client
        return lambda *args, **kwargs: _executor_for_futures().submit(
            client._call, method, args, kwargs)
