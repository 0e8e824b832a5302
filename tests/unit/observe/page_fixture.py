"""A stand-in for the launcher's observe endpoint (docs/observe.md), for the
browser test of the live page (page_browser_test.py): serves observe/page/*
at /, /page.js and /page.css, and a status document (schema 1) that the
test changes while the page runs, its events at /api/events?after=SEQ and
task logs at /api/log?task=NODE.REPLICA&bytes=N (401 with the server's
message when the test says the token is missing)."""

import json
import os
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

STATES = ("pending", "running", "backoff", "succeeded", "failed", "stopped", "idle")
PAGE_TYPES = {"index.html": "text/html; charset=utf-8", "page.js": "text/javascript; charset=utf-8",
              "page.css": "text/css; charset=utf-8"}
MAX_EVENTS_PER_REQUEST = 500
TOKEN_MESSAGE = ("this needs the program's view token: open the page as URL?token=TOKEN, or send "
                 "'Authorization: Bearer TOKEN'; the token is in RUN/observe-token (docs/observe.md)\n")


def node(name, type_="exec", handles=(), tasks=1, min_=None, max_=None, daemon=False, world=False, host="node1"):
    """One node of the fixture program, every task running."""
    min_ = tasks if min_ is None else min_
    max_ = tasks if max_ is None else max_
    return {"name": name, "type": type_, "handles": list(handles), "min": min_, "max": max_,
            "elastic": min_ != max_, "world": world, "daemon": daemon, "epoch": 1 if world else None,
            "tasks": [{"replica": r, "state": "running", "host": host, "pid": 1000 + r, "attempt": 0,
                       "restarts": 0, "epoch": 1 if world else None, "started_unix_ms": 1764331100000,
                       "cpu_seconds": 1.0 + r, "rss_bytes": (64 + r) << 20, "last_exit": None}
                      for r in range(tasks)]}


class Fixture:
    """The program the fake endpoint shows; every method is thread-safe."""

    def __init__(self, page_dir, program, nodes, events=(), logs=None):
        self.page_dir = page_dir
        self.lock = threading.Lock()
        self.program = program
        self.nodes = nodes
        self.events = list(events)
        self.logs = dict(logs or {})
        self.token_required = False
        self.requests = []
        self.started = int(time.time() * 1000) - 3723000  # "up 1h 02m 03s"
        self.unix_ms = int(time.time() * 1000)
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()

    @property
    def url(self):
        return f"http://127.0.0.1:{self.server.server_address[1]}/"

    def set_task(self, node_name, replica, **fields):
        """Changes one task (state, attempt, last_exit...), as the launcher's next document would."""
        with self.lock:
            for n in self.nodes:
                if n["name"] == node_name:
                    n["tasks"][replica].update(fields)
            self.unix_ms = int(time.time() * 1000)

    def advance_clock(self, ms):
        """The next document as if built `ms` later than the last."""
        with self.lock:
            self.unix_ms += ms

    def add_event(self, **event):
        with self.lock:
            event.setdefault("seq", len(self.events) + 1)
            event.setdefault("time", time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime()))
            event.setdefault("program", self.program)
            self.events.append(event)
            self.unix_ms = int(time.time() * 1000)

    def requested(self, prefix):
        with self.lock:
            return [r for r in self.requests if r.startswith(prefix)]

    def status(self):
        with self.lock:
            out_nodes = []
            for n in self.nodes:
                states = dict.fromkeys(STATES, 0)
                for t in n["tasks"]:
                    states[t["state"]] += 1
                exits = [dict(t["last_exit"]) for t in n["tasks"] if t["last_exit"]]
                live = [t for t in n["tasks"] if t["state"] != "idle"]
                doc = {k: n[k] for k in ("name", "type", "handles", "min", "max", "elastic", "world", "daemon",
                                         "epoch")}
                doc.update({
                    "replicas": len(live), "states": states,
                    "restarts": sum(t["restarts"] for t in n["tasks"]),
                    "last_exit": max(exits, key=lambda e: e["unix_ms"]) if exits else None,
                    "cpu_seconds": sum(t["cpu_seconds"] or 0 for t in n["tasks"]),
                    "rss_bytes": sum(t["rss_bytes"] or 0 for t in n["tasks"]),
                    "tasks": [dict(t) for t in n["tasks"]]})
                out_nodes.append(doc)
            return {"schema": 1, "program": self.program, "run": "/runs/" + self.program + ".20261128-120000",
                    "resume": 2, "unix_ms": self.unix_ms, "started_unix_ms": self.started, "state": "running",
                    "stop_reason": "", "metrics": self.url,
                    "rendezvous": {"endpoint": "node1:40000", "members": 5, "requests_total": 99, "connections": 5},
                    "nodes": out_nodes,
                    "replay": [{"task": "replay.0", "unix_ms": self.unix_ms, "last_checkpoint_unix_ms": None,
                                "tables": [{"name": "experience", "size": 10, "max_size": 100,
                                            "inserted_total": 12, "sampled_total": 7, "parked_inserts": 0,
                                            "parked_samples": 1, "limiter_blocked_seconds_total": 0.5}]}],
                    "events": [dict(e) for e in self.events[-20:]]}

    def _handler(self):
        fixture = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def reply(self, code, body, content_type="text/plain; charset=utf-8"):
                data = body.encode() if isinstance(body, str) else body
                self.send_response(code)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(data)))
                self.send_header("Cache-Control", "no-store")
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self):
                url = urllib.parse.urlsplit(self.path)
                query = dict(urllib.parse.parse_qsl(url.query))
                with fixture.lock:
                    fixture.requests.append(self.path)
                page = "index.html" if url.path == "/" else url.path[1:]
                if page in PAGE_TYPES:
                    with open(os.path.join(fixture.page_dir, page), "rb") as f:
                        return self.reply(200, f.read(), PAGE_TYPES[page])
                if url.path == "/api/status":
                    return self.reply(200, json.dumps(fixture.status()), "application/json")
                if url.path == "/api/events":
                    after = int(query.get("after", "0"))
                    with fixture.lock:
                        events = [e for e in fixture.events if e["seq"] > after][:MAX_EVENTS_PER_REQUEST]
                    return self.reply(200, json.dumps(events), "application/json")
                if url.path == "/api/log":
                    if fixture.token_required:
                        return self.reply(401, TOKEN_MESSAGE)
                    task = query.get("task", "")
                    if task not in fixture.logs:
                        return self.reply(404, f"no log for {task} (yet)\n")
                    text = fixture.logs[task]
                    return self.reply(200, text[-int(query.get("bytes", "16384")):])
                return self.reply(404, f"not found: {url.path}\n")

        return Handler
