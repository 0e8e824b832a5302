#!/usr/bin/python3
"""The JSON-lines replay server of slipway's first actor_learner example, kept
as the third peer of `slipway-bench replay` after the example moved to the
built-in replay node (type = "replay"). Same server as that example's
replay.py: a deque behind one JSON object per line on a TCP socket, one
thread per connection, one lock:
  {"op": "put", "items": [...]}  -> {"size": N}
  {"op": "sample", "n": K}       -> {"items": [...]}  (fewer while filling up)
  {"op": "finish"}               -> {"finished": true}
  {"op": "status"}               -> {"size": N, "finished": bool}
What changed for the benchmark: it listens on 127.0.0.1 on a free port
(--port 0) and prints `port N` once it listens, instead of the task's
SLIPWAY_PORT_DATA; it ends when its standard input closes (the benchmark
holds it open) or on SIGTERM. Stdlib only; run it with /usr/bin/python3."""
import argparse
import collections
import json
import random
import signal
import socketserver
import sys
import threading

parser = argparse.ArgumentParser()
parser.add_argument("--capacity", type=int, default=1000)
parser.add_argument("--port", type=int, default=0)
args = parser.parse_args()

signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
buffer = collections.deque(maxlen=args.capacity)
learner_finished = False
lock = threading.Lock()


class Handler(socketserver.StreamRequestHandler):
    def handle(self):
        global learner_finished
        while True:
            try:
                line = self.rfile.readline()
                if not line:
                    return
                request = json.loads(line)
            except (ConnectionError, OSError, ValueError):
                return
            with lock:
                if request.get("op") == "put":
                    buffer.extend(request["items"])
                    reply = {"size": len(buffer)}
                elif request.get("op") == "sample":
                    reply = {"items": random.sample(list(buffer), min(request["n"], len(buffer)))}
                elif request.get("op") == "finish":
                    learner_finished = True
                    reply = {"finished": True}
                elif request.get("op") == "status":
                    reply = {"size": len(buffer), "finished": learner_finished}
                else:
                    reply = {"error": f"unknown op {request.get('op')!r}"}
            try:
                self.wfile.write((json.dumps(reply) + "\n").encode())
            except OSError:
                return


class Server(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True


server = Server(("127.0.0.1", args.port), Handler)
threading.Thread(target=server.serve_forever, daemon=True).start()
print(f"port {server.socket.getsockname()[1]}", flush=True)
sys.stdin.read()  # until the benchmark closes our standard input
