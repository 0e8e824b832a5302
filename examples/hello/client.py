"""hello: a client node. It checks its environment, connects to every
replica of each node it handles and checks who answers, then exits 0."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
import slipway_example as ex  # noqa: E402

ex.check_contract()
ex.check(os.environ["SLIPWAY_REPLICAS"] == "2", "expected 2 client replicas")
ex.print_contract_env()
for node in ("ping", "pong"):
    for replica, address in enumerate(ex.addresses(node, "tcp")):
        with ex.connect(address) as conn:
            reply = conn.makefile().readline().strip()
        ex.check(reply == f"{node}.{replica}", f"{address} answered {reply!r}, not {node}.{replica}")
        print(f"{node}.{replica} answered at {address[0]}:{address[1]}", flush=True)
print(f"hello from {ex.task_name()}: every handled node answered", flush=True)
