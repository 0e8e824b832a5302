#!/usr/bin/python3
"""The peer of `slipway-bench rendezvous`: torch.distributed.TCPStore (torch
1.13, Debian's python3-torch) doing the same single-client pattern as the
slipway client: set a 64-byte value, get it back, over loopback, with the
store's server (master) in another process.

Usage: rendezvous_tcpstore.py PAIRS      one run; prints tcpstore_pairs_per_s=X
       rendezvous_tcpstore.py --rounds   prints "ready", then for each line N
                                         on stdin runs N pairs and prints
                                         tcpstore_pairs_per_s=X (what the
                                         bench uses, interleaving rounds)
       rendezvous_tcpstore.py --server   (internal) the store's master
"""
import datetime
import subprocess
import sys
import time

import torch.distributed as dist

TIMEOUT = datetime.timedelta(seconds=60)
VALUE = b"v" * 64
KEYS = ["key/%d" % i for i in range(100)]


def serve():
    store = dist.TCPStore("127.0.0.1", 0, 2, True, timeout=TIMEOUT, wait_for_workers=False)
    print(store.port, flush=True)
    sys.stdin.read()  # until the parent closes our stdin
    del store


def run(client, pairs):
    start = time.perf_counter()
    for i in range(pairs):
        client.set(KEYS[i % 100], VALUE)
        if client.get(KEYS[i % 100]) != VALUE:
            raise SystemExit("TCPStore returned a wrong value")
    return pairs / (time.perf_counter() - start)


def main(rounds_mode, pairs):
    server = subprocess.Popen([sys.executable, __file__, "--server"], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    try:
        port = int(server.stdout.readline())
        client = dist.TCPStore("127.0.0.1", port, 2, False, timeout=TIMEOUT)
        run(client, 200)  # warm up
        if not rounds_mode:
            print("tcpstore_pairs_per_s=%.1f" % run(client, pairs), flush=True)
            return
        print("ready", flush=True)
        for line in sys.stdin:
            print("tcpstore_pairs_per_s=%.1f" % run(client, int(line)), flush=True)
    finally:
        server.stdin.close()
        server.wait(timeout=30)


if __name__ == "__main__":
    if len(sys.argv) == 2 and sys.argv[1] == "--server":
        serve()
    elif len(sys.argv) == 2 and sys.argv[1] == "--rounds":
        main(True, 0)
    elif len(sys.argv) == 2:
        main(False, int(sys.argv[1]))
    else:
        raise SystemExit(__doc__)
