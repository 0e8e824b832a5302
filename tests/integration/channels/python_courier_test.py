"""The Python binding (slipway.courier over libslipway-courier.so): serve and
call from Python over real UCX on loopback; errors, futures, one-way sends,
large payloads and a restarted callee, through explicit addresses and through
a real rendezvous (when SLIPWAY_RDZV is given). Run by ctest with
/usr/bin/python3; exits non-zero on the first failed check."""
import gc
import os
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "python"))
from slipway import courier  # noqa: E402


def check(condition, what):
    if not condition:
        print("FAILED:", what, flush=True)
        sys.exit(1)
    print("ok:", what, flush=True)


def expect_error(code, fn, *args, contains=""):
    try:
        fn(*args)
    except courier.CourierError as e:
        check(e.code == code and contains in str(e), f"{code} raised ({e})")
        return e
    check(False, f"{code} raised")


for tls in ("tcp", "posix,cma"):
    server = courier.Endpoint(name="py-server.0", tls=tls, directory="none")
    notes = []
    noted = threading.Event()

    @server.method("echo")
    def echo(request):
        return request

    @server.method()
    def fails(request):
        raise KeyError("no weights for step " + request.decode())

    def note(request):
        notes.append(request)
        noted.set()

    server.register("note", note)
    client = courier.Endpoint(name="py-client.0", tls=tls, directory="none")
    handle = client.connect(server.address, "py-server.0")
    check(handle.name == "py-server.0", "handle named by its label")
    check(handle.call("echo", b"abc") == b"abc", f"{tls}: call")
    check(handle.echo("text") == b"text", f"{tls}: attribute call, str payload")
    big = os.urandom(3 << 20)
    check(handle.call("echo", big) == big, f"{tls}: 3 MiB payload")
    futures = [handle.call_async("echo", str(i)) for i in range(50)]
    check([f.result(10) for f in futures] == [str(i).encode() for i in range(50)], f"{tls}: futures")
    check(handle.send("note", b"n1").result(10) is None, f"{tls}: one-way send completes")
    check(noted.wait(10) and notes == [b"n1"], f"{tls}: one-way send delivered")
    e = expect_error("remote_error", handle.call, "fails", b"7", contains="no weights for step 7")
    check("KeyError" in e.remote_message, "remote message carries the exception type")
    expect_error("no_such_method", handle.call, "missing", contains="no method 'missing'")
    expect_error("timeout", handle.call, "echo", b"x", 0.0)
    # A NUL would cut the name short in C ("echo\0evil" would call "echo").
    for start in (handle.call, handle.call_async, handle.send):
        expect_error("invalid_argument", start, "echo\0evil", b"x", contains="NUL")
    expect_error("invalid_argument", server.register, "bad\0name", echo, contains="NUL")
    expect_error("invalid_argument", client.connect, server.address, "a\0b", contains="NUL")
    client.close()
    expect_error("closed", handle.call, "echo", b"x")
    server.close()

# An Endpoint() that fails leaves nothing for __del__ to trip over (Python
# reports errors in __del__ through sys.unraisablehook).
unraisable = []
sys.unraisablehook = unraisable.append
try:
    courier.Endpoint(tls="no_such_transport", directory="none")
    check(False, "an Endpoint with an unknown transport fails")
except courier.CourierError as e:
    check(e.code in ("transport", "invalid_argument"),
          f"an Endpoint with an unknown transport fails ({e})")
expect_error("invalid_argument", courier.Endpoint, "name\0x", contains="NUL")
gc.collect()
check(not unraisable, "no error from __del__ of a failed Endpoint (%s)" %
      [str(u.exc_value) for u in unraisable])
sys.unraisablehook = sys.__unraisablehook__

# The progress settings reach the C++ endpoint: every mode gives the same
# answers (docs/channels.md, "Progress and threads").
for mode in ({}, {"caller_progress": False}, {"poll_limit": 0}, {"busy_poll": 0.00005},
             {"caller_progress": False, "poll_limit": 0.0002}):
    server = courier.Endpoint(name="mode-server.0", tls="tcp", directory="none", **mode)
    server.register("echo", lambda request: request + b"!")
    client = courier.Endpoint(name="mode-client.0", tls="tcp", directory="none", **mode)
    handle = client.connect(server.address, "mode-server.0")
    replies = [handle.call("echo", str(i)) for i in range(20)]
    futures = [handle.call_async("echo", str(i)) for i in range(20)]
    replies += [f.result(10) for f in futures]
    check(replies == [(str(i) + "!").encode() for i in range(20)] * 2, f"progress mode {mode}")
    client.close()
    server.close()

# Restart through a directory: SLIPWAY_RDZV names a real rendezvous (ctest
# starts one with `slipway rendezvous`); otherwise this part is skipped.
if os.environ.get("SLIPWAY_RDZV"):
    def start(who):
        s = courier.Endpoint(name="svc.0", tls="tcp", directory="rendezvous")
        s.register("who", lambda _: who)
        s.publish("svc", 0)
        return s

    first = start("first")
    client = courier.Endpoint(name="caller.0", tls="tcp", directory="rendezvous")
    svc = client.resolve("svc", 0)
    check(svc.call("who", timeout=10) == b"first", "resolved by name through the rendezvous")
    second = start("second")

    def who_answers():
        # A call in flight when the handle hears of the new address fails
        # with peer_restarted (it may or may not have run): the contract,
        # so the poll retries it.
        try:
            return svc.call("who", timeout=10)
        except courier.CourierError as e:
            if e.code != "peer_restarted":
                raise
            return b"(restarted mid-call)"

    deadline = time.monotonic() + 10
    while who_answers() != b"second" and time.monotonic() < deadline:
        time.sleep(0.05)
    check(svc.call("who", timeout=10) == b"second", "handle follows the restarted callee")
    first.close()
    check(svc.call("who", timeout=10) == b"second", "old callee closing does not withdraw the new")
    second.close()
    # resolve_all: every replica, as the directory knows them (the replica
    # count a task declares; an elastic node's live set when the launcher
    # keeps one).
    pool = []
    for r in range(2):
        os.environ.update(SLIPWAY_NODE="pool", SLIPWAY_REPLICA=str(r), SLIPWAY_REPLICAS="2")
        p = courier.Endpoint(name=f"pool.{r}", tls="tcp", directory="rendezvous")
        p.register("r", lambda _, r=r: str(r))
        p.publish()
        pool.append(p)
    for name in ("SLIPWAY_NODE", "SLIPWAY_REPLICA", "SLIPWAY_REPLICAS"):
        del os.environ[name]
    handles = client.resolve_all("pool", timeout=10)
    check([h.call("r", timeout=10) for h in handles] == [b"0", b"1"], "resolve_all: every replica")
    for p in pool:
        p.close()
    client.close()
else:
    print("skipped: restart through the rendezvous (SLIPWAY_RDZV not set)")
print("python courier: all checks passed")
