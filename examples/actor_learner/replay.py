"""actor_learner: the replay buffer (a daemon). Actors put experience in,
the learner samples batches out, over JSON lines on the "data" port:
  {"op": "put", "items": [...]}  -> {"size": N}
  {"op": "sample", "n": K}       -> {"items": [...]}  (fewer while filling up)
  {"op": "finish"}               -> {"finished": true}  (the learner is done)
  {"op": "status"}               -> {"size": N, "finished": bool}
Being a daemon, it outlives the learner, so actors ask it whether the
learner finished or has not started yet."""
import argparse
import collections
import os
import random
import signal
import socketserver
import sys
import threading

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
import slipway_example as ex  # noqa: E402

parser = argparse.ArgumentParser()
parser.add_argument("--capacity", type=int, default=1000)
args = parser.parse_args()

ex.exit_on_sigterm()
ex.check_contract()
ex.print_contract_env()
buffer = collections.deque(maxlen=args.capacity)
learner_finished = False
lock = threading.Lock()


class Handler(socketserver.StreamRequestHandler):
    def handle(self):
        global learner_finished
        channel = ex.JsonLines(self.request)
        while True:
            try:
                request = channel.receive()
            except (ConnectionError, OSError, ValueError):
                return
            with lock:
                if request.get("op") == "put":
                    buffer.extend(request["items"])
                    channel.send({"size": len(buffer)})
                elif request.get("op") == "sample":
                    channel.send({"items": random.sample(list(buffer), min(request["n"], len(buffer)))})
                elif request.get("op") == "finish":
                    learner_finished = True
                    channel.send({"finished": True})
                elif request.get("op") == "status":
                    channel.send({"size": len(buffer), "finished": learner_finished})
                else:
                    channel.send({"error": f"unknown op {request.get('op')!r}"})


class Server(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True


server = Server(("", 0), Handler, bind_and_activate=False)
server.socket = ex.listen("data")  # the port slipway chose, on every address
threading.Thread(target=server.serve_forever, daemon=True).start()
print(f"serving on port {server.socket.getsockname()[1]}, capacity {args.capacity}", flush=True)
signal.pause()  # until SIGTERM: replay is a daemon
