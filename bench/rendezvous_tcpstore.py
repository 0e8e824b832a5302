#!/usr/bin/python3
"""The peer of `slipway-bench rendezvous`: torch.distributed.TCPStore (torch
1.13, Debian's python3-torch) doing the same single-client pattern as the
slipway client: set a 64-byte value, get it back, PAIRS times, over loopback
with the store's server in another process.

Usage: rendezvous_tcpstore.py PAIRS        prints tcpstore_pairs_per_s=X
       rendezvous_tcpstore.py --server     (internal) runs the store's master
"""
import datetime
import subprocess
import sys
import time

import torch.distributed as dist

TIMEOUT = datetime.timedelta(seconds=60)


def serve():
    store = dist.TCPStore("127.0.0.1", 0, 2, True, timeout=TIMEOUT, wait_for_workers=False)
    print(store.port, flush=True)
    sys.stdin.read()  # until the parent closes our stdin
    del store


def measure(pairs):
    server = subprocess.Popen([sys.executable, __file__, "--server"], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    try:
        port = int(server.stdout.readline())
        client = dist.TCPStore("127.0.0.1", port, 2, False, timeout=TIMEOUT)
        value = b"v" * 64
        keys = ["key/%d" % (i % 100) for i in range(100)]
        for i in range(200):  # warm up
            client.set(keys[i % 100], value)
            client.get(keys[i % 100])
        start = time.perf_counter()
        for i in range(pairs):
            client.set(keys[i % 100], value)
            if client.get(keys[i % 100]) != value:
                raise SystemExit("TCPStore returned a wrong value")
        elapsed = time.perf_counter() - start
        print("tcpstore_pairs_per_s=%.1f" % (pairs / elapsed), flush=True)
    finally:
        server.stdin.close()
        server.wait(timeout=30)


if __name__ == "__main__":
    if len(sys.argv) == 2 and sys.argv[1] == "--server":
        serve()
    elif len(sys.argv) == 2:
        measure(int(sys.argv[1]))
    else:
        raise SystemExit(__doc__)
