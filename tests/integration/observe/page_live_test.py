"""integration:observe:page_live: the live page of a program that `slipway run`
runs (issue 29 item 4), in headless Chromium (Selenium): the launcher's
endpoint serves the page, which draws every node of the program; a task
killed with SIGKILL (its node has max_retries) turns its node's colour
within 2 s; its replica table and events show the restart; its log needs
the view token (the server's 401 message is shown), and after opening the
page once with ?token=T (the cookie) the log tail is shown.

Environment: SLIPWAY (the binary). Usage: page_live_test.py SOURCE_DIR"""

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request

SOURCE = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "../../.."))
sys.path.insert(0, os.path.join(SOURCE, "tests", "lib"))

from page_browser import Browser  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402

SLIPWAY = os.environ["SLIPWAY"]
PROGRAM = "page-live"
MARKER = f"slipway-page-live-{os.getpid()}"
CHANGE_LIMIT_S = 2.0
NODES = {"store", "trainer", "watcher"}


def check(condition, message):
    if not condition:
        raise AssertionError(message)


def topology(work):
    # Each task prints a line (its log) and sleeps; the test stops the program.
    task = ["/usr/bin/python3", "-c",
            "import os, time; print('task', os.environ['SLIPWAY_NODE'], os.environ['SLIPWAY_REPLICA'], "
            "'attempt', os.environ['SLIPWAY_ATTEMPT'], flush=True); time.sleep(300)", MARKER]
    command = json.dumps(task)
    path = os.path.join(work, "page_live.toml")
    with open(path, "w") as f:
        f.write(f"""[program]
name = "{PROGRAM}"

[node.store]
command = {command}
ports = ["api"]
max_retries = 3

[node.trainer]
command = {command}
replicas = 2
ports = ["grad"]
handles = ["store"]

[node.watcher]
command = {command}
handles = ["trainer", "store"]
""")
    return path


def get(url, timeout=5):
    with urllib.request.urlopen(url, timeout=timeout) as r:
        return r.read().decode()


class Run:
    """`slipway run` of the topology in the background, stopped on exit."""

    def __init__(self, work, path):
        self.work = work
        self.env = dict(os.environ, SLIPWAY_RUN_ROOT=os.path.join(work, "runs"))
        self.out = open(os.path.join(work, "run.out"), "w+")
        self.proc = subprocess.Popen([SLIPWAY, "run", path, "--metrics", "127.0.0.1:0"], cwd=work,
                                     stdout=self.out, stderr=subprocess.STDOUT, env=self.env,
                                     start_new_session=True)

    def output(self):
        self.out.flush()
        with open(self.out.name) as f:
            return f.read()

    def run_dir(self):
        return os.path.realpath(os.path.join(self.work, "runs", PROGRAM + ".latest"))

    def status_json(self):
        r = subprocess.run([SLIPWAY, "status", "--json", PROGRAM], env=self.env, cwd=self.work,
                           capture_output=True, text=True, timeout=20)
        return json.loads(r.stdout) if r.returncode == 0 and r.stdout.strip().startswith("{") else None

    def url(self, timeout=60):
        """The endpoint's URL, from the status document once every task runs."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            check(self.proc.poll() is None, "slipway run ended early:\n" + self.output())
            doc = self.status_json()
            if doc and doc.get("metrics") and all(n["states"]["running"] == n["replicas"] for n in doc["nodes"]):
                return doc["metrics"]
            time.sleep(0.2)
        raise AssertionError("no running program with an endpoint after 60 s:\n" + self.output())

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(10)
        if exc[0] is not None:
            print("--- slipway run output ---\n" + self.output(), file=sys.stderr)
        self.out.close()
        subprocess.run(["pkill", "-9", "-f", MARKER], check=False)


def main():
    start = time.monotonic()
    work = tempfile.mkdtemp(prefix="slipway-page-live.")
    try:
        with Run(work, topology(work)) as run:
            url = run.url()
            check(re.match(r"^http://127\.0\.0\.1:[0-9]+/$", url), f"a loopback endpoint, got {url!r}")
            with Browser() as b:
                b.open_drawn(url)
                drawn, _ = b.wait_until("every node drawn running", lambda: (lambda n: n if set(n) == NODES and all(
                    v["state"] == "running" for v in n.values()) else None)(b.nodes()), 10)
                check(drawn["trainer"]["count"] == "2/2", f"trainer shows 2/2, got {drawn['trainer']['count']!r}")
                check(b.js("return window.slipwayFirstDrawMs") > 0, "first draw measured")
                print(f"ok: the launcher's page draws {sorted(drawn)}, all running")

                status = json.loads(get(url + "api/status"))
                store = next(n for n in status["nodes"] if n["name"] == "store")
                pid = store["tasks"][0]["pid"]
                check(isinstance(pid, int) and pid > 1, f"store.0's pid in the status, got {pid!r}")
                os.kill(pid, signal.SIGKILL)
                killed = time.monotonic()
                b.wait_until("store drawn in another state", lambda: b.nodes()["store"]["state"] != "running", 10)
                elapsed = time.monotonic() - killed
                after = b.nodes()["store"]
                check(after["fill"] != drawn["store"]["fill"], f"store's colour changed: {after}")
                check(elapsed <= CHANGE_LIMIT_S,
                      f"store turned {after['state']} {elapsed:.2f} s after SIGKILL, more than {CHANGE_LIMIT_S} s")
                print(f"ok: store.0 killed -> store drawn {after['state']} after {elapsed:.2f} s")

                b.node("store").click()
                b.wait_until("store.0 at attempt 1 in the panel", lambda: b.js(
                    "const r = document.querySelector('#replicas tr[data-task=\"store.0\"]');"
                    "return r && r.cells[3].textContent === '1' && r.dataset.state === 'running'"), 15)
                b.wait_until("store.0's exit by SIGKILL in its events", lambda: "SIGKILL" in b.text("#node-events")
                             or "signal 9" in b.text("#node-events"), 10)
                check(b.nodes()["store"]["restarts"] == "1", "data-restarts 1")
                print("ok: the panel shows store.0's restart and its exit event")

                b.driver.find_element(By.CSS_SELECTOR, '#replicas tr[data-task="store.0"]').click()
                b.wait_until("the server's 401 for the log", lambda: "HTTP 401" in b.text("#log"), 10)
                with open(os.path.join(run.run_dir(), "observe-token")) as f:
                    token = f.read().strip()
                b.open_drawn(url + "?token=" + token)
                check("token" not in b.driver.current_url, f"the token left the address bar: {b.driver.current_url}")
                b.node("store").click()
                b.wait_until("the panel", lambda: b.js("return !document.getElementById('panel').hidden"), 5)
                b.driver.find_element(By.CSS_SELECTOR, '#replicas tr[data-task="store.0"]').click()
                b.wait_until("store.0's log tail", lambda: "task store 0 attempt 1" in b.text("#log"), 10)
                print("ok: the log needs the token; with it (?token=, then the cookie) the page shows the tail")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"page_live: all checks passed in {time.monotonic() - start:.1f} s")


if __name__ == "__main__":
    main()
