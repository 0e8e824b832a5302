"""Courier RPC over UCX from Python: a ctypes binding of libslipway-courier.so
(the C ABI in channels/include/slipway/channels/courier.h).

    from slipway import courier

    # the service (a node of type "courier")
    ep = courier.Endpoint()                 # name NODE.REPLICA, rendezvous from the task env
    ep.register("get_weights", lambda request: weights_bytes)
    ep.publish()                            # as SLIPWAY_NODE / SLIPWAY_REPLICA
    ep.serve_forever()

    # a caller
    ep = courier.Endpoint()
    learner = ep.resolve("learner")         # replica 0; ep.resolve_all("actor") for all
    data = learner.call("get_weights", b"", timeout=10.0)
    future = learner.call_async("get_weights")
    learner.send("log", b"step 10")         # one-way

Payloads are bytes (str is sent as UTF-8); handlers take bytes and return
bytes, str or None. A handler's exception reaches the caller as a
CourierError with code "remote_error" and the exception's text.

Handlers run on whichever thread drives the endpoint's worker at that
moment: its progress thread, or a caller of this endpoint blocked in call()
that drives the worker itself while it waits (docs/channels.md), unless
`handler_threads` gives them threads of their own. They hold the GIL: keep
them short, or set handler_threads so that they may block and make calls of
their own (a blocking call from a handler on the worker's thread fails with
"would_deadlock"; call_async works).

The library is found through $SLIPWAY_COURIER_LIBRARY, next to this package
in a build tree (build/lib), or on the system library path.
"""

import ctypes
import ctypes.util
import os
import signal
import threading
from typing import Any, Callable, Iterator, Optional, Union

# What a courier payload may be: bytes-like, text (sent as UTF-8) or None (empty).
Payload = Union[bytes, bytearray, memoryview, str, None]

__all__ = ["CourierError", "Endpoint", "Handle", "Future", "load_library"]

_ERRORS = {
    1: "timeout", 2: "remote_error", 3: "no_such_method", 4: "message_too_large",
    5: "overloaded", 6: "peer_restarted", 7: "peer_lost", 8: "not_resolved", 9: "closed",
    10: "would_deadlock", 11: "invalid_argument", 12: "transport", 13: "protocol",
    100: "pending", 101: "internal",
}
_PENDING = 100


class CourierError(Exception):
    """A failed courier operation. `code` names what happened (as the C++
    Errc: "timeout", "remote_error", "peer_restarted", ...); for
    "remote_error", `remote_message` is the callee's own message."""

    def __init__(self, code: str, message: str, remote_message: str = "") -> None:
        super().__init__(message)
        self.code = code
        self.remote_message = remote_message


class _Error(ctypes.Structure):
    _fields_ = [("code", ctypes.c_int), ("message", ctypes.c_char * 2048),
                ("remote_message", ctypes.c_char * 1024)]

    def raise_if_failed(self, status: int) -> None:
        if status != 0:
            raise CourierError(_ERRORS.get(status, "unknown"),
                               self.message.decode("utf-8", "replace"),
                               self.remote_message.decode("utf-8", "replace"))


class _Buffer(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("size", ctypes.c_size_t), ("owner", ctypes.c_void_p)]


class _Options(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("tls", ctypes.c_char_p),
                ("net_devices", ctypes.c_char_p), ("rndv_thresh", ctypes.c_char_p),
                ("max_message_bytes", ctypes.c_uint64), ("handler_threads", ctypes.c_uint32),
                ("default_timeout_ms", ctypes.c_int64), ("directory", ctypes.c_int),
                ("caller_progress", ctypes.c_int), ("poll_limit_us", ctypes.c_int64),
                ("busy_poll_us", ctypes.c_int64)]


_HANDLER = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t,
                            ctypes.c_void_p)
_DIRECTORIES = {"auto": 2, "rendezvous": 1, "none": 0}
_lib: Optional[ctypes.CDLL] = None
_lib_lock = threading.Lock()


def _candidates() -> Iterator[str]:
    explicit = os.environ.get("SLIPWAY_COURIER_LIBRARY")
    if explicit:
        yield explicit
    here = os.path.dirname(os.path.abspath(__file__))
    for build in ("build", os.environ.get("SLIPWAY_BUILD_DIR", "build")):
        yield os.path.join(here, "..", "..", build, "lib", "libslipway-courier.so")
    yield os.path.join(here, "..", "..", "libslipway-courier.so")  # LIBDIR/slipway/python/slipway
    yield os.path.join(here, "..", "..", "..", "libslipway-courier.so")  # an older install: LIBDIR
    yield os.path.join(here, "..", "..", "..", "lib", "libslipway-courier.so")  # prefix/lib/python...
    found = ctypes.util.find_library("slipway-courier")
    if found:
        yield found


def load_library() -> ctypes.CDLL:
    """Loads libslipway-courier.so once and declares its functions."""
    global _lib
    with _lib_lock:
        if _lib is not None:
            return _lib
        tried = []
        for path in _candidates():
            tried.append(path)
            if os.path.sep in path and not os.path.exists(path):
                continue
            try:
                lib = ctypes.CDLL(path)  # CDLL: the GIL is released during calls
                break
            except OSError:
                continue
        else:
            raise OSError("libslipway-courier.so not found (tried: %s); set "
                          "SLIPWAY_COURIER_LIBRARY to its path" % ", ".join(tried))
        p, sz, i64, u32 = ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int64, ctypes.c_uint32
        err, buf, cstr = ctypes.POINTER(_Error), ctypes.POINTER(_Buffer), ctypes.c_char_p
        sigs: dict[str, tuple[Any, list[Any]]] = {
            "slipway_endpoint_options_init": (None, [ctypes.POINTER(_Options)]),
            "slipway_endpoint_create": (p, [ctypes.POINTER(_Options), err]),
            "slipway_endpoint_destroy": (None, [p]),
            "slipway_endpoint_address": (None, [p, ctypes.POINTER(p), ctypes.POINTER(sz)]),
            "slipway_endpoint_name": (cstr, [p]),
            "slipway_endpoint_register": (ctypes.c_int, [p, cstr, _HANDLER, p, err]),
            "slipway_endpoint_publish": (ctypes.c_int, [p, cstr, u32, err]),
            "slipway_endpoint_replicas": (ctypes.c_int, [p, cstr, i64, ctypes.POINTER(u32), err]),
            "slipway_endpoint_live_replicas": (ctypes.c_int, [p, cstr, i64, ctypes.POINTER(u32), u32,
                                                              ctypes.POINTER(u32), err]),
            "slipway_endpoint_resolve": (p, [p, cstr, u32, err]),
            "slipway_endpoint_connect": (p, [p, p, sz, cstr, err]),
            "slipway_responder_reply": (ctypes.c_int, [p, p, sz]),
            "slipway_responder_fail": (ctypes.c_int, [p, cstr]),
            "slipway_handle_destroy": (None, [p]),
            "slipway_handle_name": (cstr, [p]),
            "slipway_call": (ctypes.c_int, [p, cstr, p, sz, i64, buf, err]),
            "slipway_call_async": (p, [p, cstr, p, sz, i64, err]),
            "slipway_send": (p, [p, cstr, p, sz, i64, err]),
            "slipway_future_wait": (ctypes.c_int, [p, i64, buf, err]),
            "slipway_future_destroy": (None, [p]),
            "slipway_buffer_free": (None, [buf]),
        }
        for name, (restype, argtypes) in sigs.items():
            fn = getattr(lib, name)
            fn.restype = restype
            fn.argtypes = argtypes
        _lib = lib
        return lib


def _as_bytes(data: Payload) -> bytes:
    if data is None:
        return b""
    if isinstance(data, str):
        return data.encode("utf-8")
    return bytes(data)


def _c_string(value: Union[str, bytes], what: str) -> bytes:
    """`value` (str or bytes) as the bytes of a C string; refuses a NUL,
    where C would cut it short without a word."""
    data = value.encode("utf-8") if isinstance(value, str) else bytes(value)
    if b"\0" in data:
        raise CourierError("invalid_argument",
                           "%s %r contains a NUL character: C strings end there, so it would "
                           "become %r; remove the NUL" % (what, value, data.split(b"\0")[0]))
    return data


def _timeout_ms(timeout: Optional[float]) -> int:
    return -1 if timeout is None else max(0, int(timeout * 1000))


def _take(lib: ctypes.CDLL, buffer: _Buffer) -> bytes:
    try:
        return ctypes.string_at(buffer.data, buffer.size) if buffer.size else b""
    finally:
        lib.slipway_buffer_free(ctypes.byref(buffer))


class Future:
    """The outcome of call_async() or send(): result(timeout=None) returns the
    reply (bytes; None for send) or raises CourierError."""

    def __init__(self, lib: ctypes.CDLL, pointer: Optional[int], oneway: bool) -> None:
        self._lib, self._ptr, self._oneway = lib, pointer, oneway
        self._done = False
        self._value: Optional[bytes] = None
        self._error: Optional[CourierError] = None
        self._lock = threading.Lock()

    def _wait(self, timeout: Optional[float]) -> bool:
        with self._lock:
            if self._done:
                return True
            buffer, error = _Buffer(), _Error()
            status = self._lib.slipway_future_wait(self._ptr, _timeout_ms(timeout),
                                                   ctypes.byref(buffer), ctypes.byref(error))
            if status == _PENDING:
                return False
            self._done = True
            if status == 0:
                self._value = None if self._oneway else _take(self._lib, buffer)
            else:
                self._error = CourierError(_ERRORS.get(status, "unknown"),
                                           error.message.decode("utf-8", "replace"),
                                           error.remote_message.decode("utf-8", "replace"))
            self._lib.slipway_future_destroy(self._ptr)
            self._ptr = None
            return True

    def done(self) -> bool:
        return self._wait(0)

    def result(self, timeout: Optional[float] = None) -> Optional[bytes]:
        if not self._wait(timeout):
            raise CourierError("timeout", "the future is not complete after %ss" % timeout)
        if self._error is not None:
            raise self._error
        return self._value

    def __del__(self) -> None:
        if getattr(self, "_ptr", None) and _lib is not None:
            _lib.slipway_future_destroy(self._ptr)


class Handle:
    """A caller's reference to one callee. handle.call("m", data) or, for
    method names that are identifiers, handle.m(data)."""

    def __init__(self, endpoint: "Endpoint", pointer: int) -> None:
        self._endpoint, self._lib = endpoint, endpoint._lib
        self._ptr: Optional[int] = pointer
        self.name: str = self._lib.slipway_handle_name(pointer).decode()

    def call(self, method: str, data: Payload = b"", timeout: Optional[float] = None) -> bytes:
        payload, buffer, error = _as_bytes(data), _Buffer(), _Error()
        status = self._lib.slipway_call(self._ptr, _c_string(method, "method name"), payload,
                                        len(payload),
                                        _timeout_ms(timeout), ctypes.byref(buffer),
                                        ctypes.byref(error))
        error.raise_if_failed(status)
        return _take(self._lib, buffer)

    def call_async(self, method: str, data: Payload = b"", timeout: Optional[float] = None) -> Future:
        return self._start(self._lib.slipway_call_async, method, data, timeout, False)

    def send(self, method: str, data: Payload = b"", timeout: Optional[float] = None) -> Future:
        return self._start(self._lib.slipway_send, method, data, timeout, True)

    def _start(self, fn: Any, method: str, data: Payload, timeout: Optional[float],
               oneway: bool) -> Future:
        payload, error = _as_bytes(data), _Error()
        pointer = fn(self._ptr, _c_string(method, "method name"), payload, len(payload),
                     _timeout_ms(timeout), ctypes.byref(error))
        if not pointer:
            error.raise_if_failed(error.code or 101)
        return Future(self._lib, pointer, oneway)

    def __getattr__(self, method: str) -> Callable[..., bytes]:
        if method.startswith("_"):
            raise AttributeError(method)

        def call(data: Payload = b"", timeout: Optional[float] = None) -> bytes:
            return self.call(method, data, timeout)
        return call

    def close(self) -> None:
        if getattr(self, "_ptr", None):
            self._lib.slipway_handle_destroy(self._ptr)
            self._ptr = None

    def __del__(self) -> None:
        self.close()


class Endpoint:
    """One courier endpoint: a UCX worker and its progress thread. Serves the
    methods registered on it and makes handles to others.

    directory: "auto" (the program's rendezvous when run by slipway),
    "rendezvous" or "none" (connect() with explicit addresses only).
    caller_progress, poll_limit and busy_poll (seconds) choose how threads
    wait for UCX, as EndpointOptions does in C++ (docs/channels.md,
    "Progress and threads"): poll_limit=0 never polls, busy_poll fixes the
    polling window, caller_progress=False hands every call to the progress
    thread."""

    def __init__(self, name: Optional[str] = None, tls: Optional[str] = None,
                 net_devices: Optional[str] = None, rndv_thresh: Optional[str] = None,
                 max_message_bytes: int = 0, handler_threads: int = 0,
                 default_timeout: Optional[float] = None, directory: str = "auto",
                 caller_progress: bool = True, poll_limit: Optional[float] = None,
                 busy_poll: Optional[float] = None) -> None:
        if not isinstance(directory, str) or directory not in _DIRECTORIES:
            raise ValueError("Endpoint(directory=%r): choose one of %s" % (
                directory, ", ".join(repr(d) for d in _DIRECTORIES)))
        self._lib = load_library()
        options = _Options()
        self._lib.slipway_endpoint_options_init(ctypes.byref(options))
        for field, value in (("name", name), ("tls", tls), ("net_devices", net_devices),
                             ("rndv_thresh", rndv_thresh)):
            if value is not None:
                setattr(options, field, _c_string(value, field))
        options.max_message_bytes = max_message_bytes
        options.handler_threads = handler_threads
        options.default_timeout_ms = -1 if default_timeout is None else int(default_timeout * 1000)
        options.directory = _DIRECTORIES[directory]
        options.caller_progress = 1 if caller_progress else 0
        if poll_limit is not None:
            options.poll_limit_us = int(poll_limit * 1e6)
        if busy_poll is not None:
            options.busy_poll_us = int(busy_poll * 1e6)
        error = _Error()
        self._ptr: Optional[int] = self._lib.slipway_endpoint_create(ctypes.byref(options),
                                                                     ctypes.byref(error))
        if not self._ptr:
            error.raise_if_failed(error.code or 101)
        self._handlers: list[Any] = []  # keeps the ctypes callbacks alive
        self._closed = threading.Event()
        self.name: str = self._lib.slipway_endpoint_name(self._ptr).decode()

    @property
    def address(self) -> bytes:
        data, size = ctypes.c_void_p(), ctypes.c_size_t()
        self._lib.slipway_endpoint_address(self._ptr, ctypes.byref(data), ctypes.byref(size))
        return ctypes.string_at(data, size.value)

    def register(self, method: str, fn: Callable[[bytes], Payload]) -> Callable[[bytes], Payload]:
        """Serves `method` with fn(request: bytes) -> bytes | str | None."""
        lib = self._lib

        def trampoline(_user: Optional[int], request: int, size: int,
                       responder: Optional[int]) -> None:
            try:
                reply = _as_bytes(fn(ctypes.string_at(request, size) if size else b""))
            except BaseException as exc:  # the caller gets the message
                lib.slipway_responder_fail(responder, ("%s: %s" % (type(exc).__name__, exc)).encode())
                return
            lib.slipway_responder_reply(responder, reply, len(reply))

        callback = _HANDLER(trampoline)
        error = _Error()
        error.raise_if_failed(self._lib.slipway_endpoint_register(
            self._ptr, _c_string(method, "method name"), callback, None, ctypes.byref(error)))
        self._handlers.append(callback)
        return fn

    def method(self, name: Optional[str] = None) -> Callable[[Callable[[bytes], Payload]],
                                                              Callable[[bytes], Payload]]:
        """Decorator form of register()."""
        return lambda fn: self.register(name or fn.__name__, fn)

    def publish(self, node: Optional[str] = None, replica: int = 0) -> None:
        """Publishes this endpoint as node.replica (default: this task's)."""
        error = _Error()
        error.raise_if_failed(self._lib.slipway_endpoint_publish(
            self._ptr, _c_string(node, "node name") if node else None, replica,
            ctypes.byref(error)))

    def resolve(self, node: str, replica: int = 0) -> Handle:
        error = _Error()
        pointer = self._lib.slipway_endpoint_resolve(self._ptr, _c_string(node, "node name"),
                                                     replica, ctypes.byref(error))
        if not pointer:
            error.raise_if_failed(error.code or 101)
        return Handle(self, pointer)

    def resolve_all(self, node: str, timeout: Optional[float] = 30.0) -> list[Handle]:
        """Handles to every replica of `node`: of an elastic node, the ones it
        runs now (each call asks again)."""
        capacity = 64
        while True:
            replicas, count, error = (ctypes.c_uint32 * capacity)(), ctypes.c_uint32(), _Error()
            error.raise_if_failed(self._lib.slipway_endpoint_live_replicas(
                self._ptr, _c_string(node, "node name"), _timeout_ms(timeout), replicas, capacity,
                ctypes.byref(count), ctypes.byref(error)))
            if count.value <= capacity:
                return [self.resolve(node, replicas[i]) for i in range(count.value)]
            capacity = count.value

    def connect(self, address: bytes, label: str = "") -> Handle:
        error = _Error()
        pointer = self._lib.slipway_endpoint_connect(self._ptr, address, len(address),
                                                     _c_string(label, "label"),
                                                     ctypes.byref(error))
        if not pointer:
            error.raise_if_failed(error.code or 101)
        return Handle(self, pointer)

    def serve_forever(self) -> None:
        """Blocks until close() or SIGTERM/SIGINT (then closes)."""
        if threading.current_thread() is threading.main_thread():
            for sig in (signal.SIGTERM, signal.SIGINT):
                signal.signal(sig, lambda *_: self._closed.set())
        while not self._closed.wait(0.5):
            pass
        self.close()

    def close(self) -> None:
        # Also reached from __del__ of an Endpoint whose __init__ failed
        # part-way: only what was made is undone.
        closed = getattr(self, "_closed", None)
        if closed is not None:
            closed.set()
        if getattr(self, "_ptr", None):
            self._lib.slipway_endpoint_destroy(self._ptr)
            self._ptr = None

    def __enter__(self) -> "Endpoint":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        self.close()

