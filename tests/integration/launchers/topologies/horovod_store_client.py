"""One horovod rank's side of the gloo rendezvous, as Horovod's HTTPStore
does it: PUT its own key in scope "global", poll GET for every rank's key,
then DELETE its key (finalize). Rank 0 stays until the store cleared the
scope, which it does once every rank finalized."""
import http.client
import os
import sys
import time

addr = os.environ["HOROVOD_GLOO_RENDEZVOUS_ADDR"]
port = int(os.environ["HOROVOD_GLOO_RENDEZVOUS_PORT"])
rank = int(os.environ["HOROVOD_RANK"])
size = int(os.environ["HOROVOD_SIZE"])


def request(method, path, body=None):
    for _ in range(300):  # rank 0's agent may not be serving yet
        try:
            conn = http.client.HTTPConnection(addr, port, timeout=5)
            conn.request(method, path, body=body)
            response = conn.getresponse()
            return response.status, response.read()
        except ConnectionRefusedError:
            time.sleep(0.1)
    sys.exit("no rendezvous store at %s:%d" % (addr, port))


status, _ = request("PUT", "/global/rank_%d" % rank, body=b"host-of-%d" % rank)
assert status == 200, status
seen = []
for other in range(size):
    deadline = time.time() + 30
    while True:
        status, value = request("GET", "/global/rank_%d" % other)
        if status == 200:
            seen.append(value.decode())
            break
        assert status == 404, status
        assert time.time() < deadline, "rank %d never published" % other
        time.sleep(0.05)
print("rank %d saw %s" % (rank, ",".join(seen)), flush=True)
status, _ = request("DELETE", "/global/rank_%d" % rank)
assert status == 200, status
if rank == 0:
    deadline = time.time() + 30
    while request("GET", "/global/rank_0")[0] != 404:
        assert time.time() < deadline, "the store never cleared scope global"
        time.sleep(0.05)
    print("rank 0: scope global cleared after every rank finalized", flush=True)
