"""hello: a server node (ping or pong). It checks its environment, greets
its peer across the handle cycle, then answers every connection with its
task name until it is stopped (it is a daemon)."""
import os
import signal
import sys
import threading

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
import slipway_example as ex  # noqa: E402

ex.exit_on_sigterm()
ex.check_contract()
ex.print_contract_env()
server = ex.listen("tcp")


def serve():
    while True:
        conn, _ = server.accept()
        with conn:
            conn.sendall(f"{ex.task_name()}\n".encode())


threading.Thread(target=serve, daemon=True).start()

peer = {"ping": "pong", "pong": "ping"}[os.environ["SLIPWAY_NODE"]]
for replica, address in enumerate(ex.addresses(peer, "tcp")):
    with ex.connect(address) as conn:
        reply = conn.makefile().readline().strip()
    ex.check(reply == f"{peer}.{replica}", f"{address} answered {reply!r}, not {peer}.{replica}")
    print(f"{peer}.{replica} answered at {address[0]}:{address[1]}", flush=True)
signal.pause()  # serve until SIGTERM
