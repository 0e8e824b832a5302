"""Helpers shared by the example scripts: read and check the SLIPWAY_*
contract environment (docs/contract.md), print it (never the token), listen
on a named port and talk to the replicas of a handled node."""
import json
import os
import signal
import socket
import sys
import time


def task_name():
    return f"{os.environ.get('SLIPWAY_NODE', '?')}.{os.environ.get('SLIPWAY_REPLICA', '?')}"


def fail(message):
    print(f"FAILED: {message}", file=sys.stderr, flush=True)
    sys.exit(1)


def check(condition, message):
    if not condition:
        fail(message)


def env_name(name):
    """Node and port names as they appear in variable names."""
    return name.upper().replace("-", "_").replace(".", "_")


def check_contract():
    """The variables every task gets, with consistent values."""
    for var in ("SLIPWAY_PROGRAM", "SLIPWAY_NODE", "SLIPWAY_REPLICA", "SLIPWAY_REPLICAS", "SLIPWAY_ATTEMPT"):
        check(os.environ.get(var, "") != "", f"{var} is not set")
    replica, replicas = int(os.environ["SLIPWAY_REPLICA"]), int(os.environ["SLIPWAY_REPLICAS"])
    check(0 <= replica < replicas, f"SLIPWAY_REPLICA {replica} is not below SLIPWAY_REPLICAS {replicas}")
    check(int(os.environ["SLIPWAY_ATTEMPT"]) >= 0, "SLIPWAY_ATTEMPT is negative")


def print_contract_env():
    for name in sorted(os.environ):
        if name.startswith("SLIPWAY_") and name != "SLIPWAY_TOKEN":
            print(f"{name}={os.environ[name]}", flush=True)


def exit_on_sigterm():
    """Daemons are stopped with SIGTERM once the other nodes finished."""
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))


def addresses(node, port):
    """(host, port) of every replica of a handled node's named port, in replica order."""
    var = f"SLIPWAY_ADDR_{env_name(node)}_{env_name(port)}"
    value = os.environ.get(var, "")
    check(value != "", f"{var} is not set; does this node handle '{node}'?")
    out = []
    for item in value.split(","):
        host, _, number = item.rpartition(":")
        out.append((host.strip("[]"), int(number)))
    return out


def listen(port):
    """A listening socket on the port slipway chose for this replica's named port."""
    number = int(os.environ[f"SLIPWAY_PORT_{env_name(port)}"])
    if socket.has_dualstack_ipv6():
        return socket.create_server(("", number), family=socket.AF_INET6, dualstack_ipv6=True)
    return socket.create_server(("", number))


def connect(address, timeout=30.0):
    """Connects, retrying while the peer's command has not bound its port yet."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            return socket.create_connection(address, timeout=10)
        except OSError as error:
            if time.monotonic() > deadline:
                fail(f"cannot connect to {address[0]}:{address[1]}: {error}")
            time.sleep(0.1)


class JsonLines:
    """One JSON object per line over a socket: a tiny request/response protocol."""

    def __init__(self, sock):
        self.sock = sock
        self.reader = sock.makefile("r", encoding="utf-8")

    def send(self, obj):
        self.sock.sendall((json.dumps(obj) + "\n").encode())

    def receive(self):
        line = self.reader.readline()
        if not line:
            raise ConnectionError("peer closed the connection")
        return json.loads(line)

    def call(self, obj):
        self.send(obj)
        return self.receive()

    def close(self):
        self.reader.close()
        self.sock.close()
