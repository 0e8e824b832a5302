#!/usr/bin/python3
"""slipway-bench observe: what seeing inside a running program costs, at
TASKS tasks (default 1,000) running locally, each side by side with a peer.

* scrape_ms: median wall time of GET /metrics of the program (the launcher's
  endpoint), scrapes alternating with GET /metrics of a real Prometheus
  server (its own Go exporter: prometheus_self_scrape_ms), ROUNDS each.
* top_cpu_pct: the CPU `slipway top` (redrawing every second under a
  pseudo-terminal) takes over WINDOW seconds, against procps `top -b -d 1`
  (peer_top_cpu_pct) over the same window, one after the other.
* page_load_ms: headless Chromium (Selenium) loading the page until the
  graph is drawn (window.slipwayFirstDrawMs), median of 3 loads.
* controller_cpu_pct_idle: the launcher's CPU over WINDOW seconds with a
  scrape every second, minus over WINDOW seconds without
  (controller_cpu_pct_base).

Last line: observe: scrape_ms=... top_cpu_pct=... page_load_ms=...
controller_cpu_pct_idle=... (and the peers' figures).
"""
import os
import pty
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request

TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS  # utime, stime


def launcher_of(guard):
    """`slipway run` runs its launcher under guard processes: the launcher is
    the deepest slipway process below it (the tasks' parent)."""
    pid, found = guard, None
    while True:
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            children = f.read().split()
        nxt = None
        for child in children:
            with open(f"/proc/{child}/comm") as c:
                comm = c.read().strip()
            if comm in ("slipway", "run-keeper"):
                nxt = int(child)
                if comm == "slipway":
                    found = nxt
        if nxt is None:
            break
        pid = nxt
    if found is None:
        raise SystemExit("observe: the launcher process under slipway run's guard was not found")
    return found


def get(url, timeout=10):
    with urllib.request.urlopen(url, timeout=timeout) as r:
        return r.read()


def timed_get_ms(url):
    start = time.perf_counter()
    get(url)
    return (time.perf_counter() - start) * 1000


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def wait(predicate, seconds, what):
    deadline = time.time() + seconds
    while time.time() < deadline:
        try:
            if predicate():
                return
        except Exception:
            pass
        time.sleep(0.2)
    raise SystemExit(f"observe: timed out after {seconds} s waiting for {what}")


def cpu_over(pid, seconds, during=None):
    before, start = cpu_seconds(pid), time.time()
    while time.time() - start < seconds:
        if during:
            during()
        time.sleep(max(0.0, 1.0 - (time.time() - start) % 1.0))
    return (cpu_seconds(pid) - before) / (time.time() - start) * 100


def run_pty(argv, seconds, env=None):
    """Runs argv on a pseudo-terminal for `seconds`, draining its output; returns its CPU %."""
    pid, fd = pty.fork()
    if pid == 0:
        os.execvpe(argv[0], argv, env or os.environ)
    os.set_blocking(fd, False)
    time.sleep(2)  # its start-up is not what is measured
    before, start = cpu_seconds(pid), time.time()
    while time.time() - start < seconds:
        try:
            os.read(fd, 1 << 16)
        except (BlockingIOError, OSError):
            pass
        time.sleep(0.05)
    pct = (cpu_seconds(pid) - before) / (time.time() - start) * 100
    if os.waitpid(pid, os.WNOHANG) != (0, 0):
        raise SystemExit(f"observe: {argv[0]} ended before the window did")
    # SIGKILL: a top blocks signals while it writes a frame to a full terminal.
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    os.close(fd)
    return pct


def page_load_ms(url, loads):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    for a in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"):
        options.add_argument(a)
    options.binary_location = "/usr/bin/chromium"
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    try:
        times = []
        for _ in range(loads):
            driver.get("about:blank")
            driver.get(url)
            deadline = time.time() + 30
            value = None
            while time.time() < deadline:
                value = driver.execute_script("return window.slipwayFirstDrawMs")
                if value is not None:
                    break
                time.sleep(0.05)
            if value is None:
                raise SystemExit("observe: the page never drew its graph")
            times.append(float(value))
        return statistics.median(times)
    finally:
        driver.quit()


def main():
    slipway = sys.argv[1]
    tasks = int(sys.argv[2]) if len(sys.argv) > 2 else 1000
    rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 50
    window = float(sys.argv[4]) if len(sys.argv) > 4 else 20
    work = tempfile.mkdtemp(prefix="slipway-bench-observe-")
    procs = []
    try:
        topology = os.path.join(work, "observe.toml")
        with open(topology, "w") as f:
            f.write(f'[program]\nname = "observe-bench"\n\n[node.worker]\ncommand = ["sleep", "3600"]\n'
                    f'replicas = {tasks}\n\n[node.learner]\ncommand = ["sleep", "3600"]\n'
                    f'handles = ["server"]\n\n[node.server]\ncommand = ["sleep", "3600"]\nports = ["p"]\n'
                    f'daemon = true\n')
        env = dict(os.environ, SLIPWAY_RUN_ROOT=os.path.join(work, "runs"))
        log = open(os.path.join(work, "launcher.log"), "w+")
        launcher = subprocess.Popen([slipway, "run", topology, "--metrics", "127.0.0.1:0"], env=env,
                                    stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        procs.append(launcher)
        url = None

        def find_url():
            nonlocal url
            log.seek(0)
            m = re.search(r"page and metrics of the program: (http://\S+/)", log.read())
            url = m.group(1) if m else None
            return url

        wait(lambda: find_url() or launcher.poll() is not None, 120, "the launcher's endpoint")
        if url is None:
            log.seek(0)
            raise SystemExit("observe: the launcher ended: " + log.read()[-2000:])
        running = re.compile(rb'slipway_node_replicas\{program="observe-bench",node="worker",state="running"\} (\d+)')
        wait(lambda: int(running.search(get(url + "metrics")).group(1)) == tasks, 300, f"{tasks} running tasks")
        time.sleep(3)
        print(f"observe: {tasks + 2} tasks running; endpoint {url}")

        prom_port = free_port()
        with open(os.path.join(work, "prometheus.yml"), "w") as f:
            f.write("global:\n  scrape_interval: 1h\n")
        prom = subprocess.Popen(["prometheus", f"--config.file={work}/prometheus.yml",
                                 f"--storage.tsdb.path={work}/prom", f"--web.listen-address=127.0.0.1:{prom_port}",
                                 "--log.level=error"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        procs.append(prom)
        prom_url = f"http://127.0.0.1:{prom_port}/metrics"
        wait(lambda: get(prom_url), 60, "prometheus")
        ours, theirs = [], []
        for _ in range(rounds):
            ours.append(timed_get_ms(url + "metrics"))
            theirs.append(timed_get_ms(prom_url))
        size = len(get(url + "metrics"))
        scrape_ms, prom_ms = statistics.median(ours), statistics.median(theirs)
        print(f"scrape: slipway {scrape_ms:.2f} ms median ({size} bytes, {rounds} scrapes), "
              f"prometheus's own /metrics {prom_ms:.2f} ms")

        controller = launcher_of(launcher.pid)
        base = cpu_over(controller, window)
        scraped = cpu_over(controller, window, during=lambda: get(url + "metrics"))
        idle_cost = max(0.0, scraped - base)
        print(f"controller: {base:.2f}% of a core without scrapes, {scraped:.2f}% with one a second "
              f"(metrics cost {idle_cost:.2f}%)")

        top_env = dict(env, TERM="xterm", LINES="50", COLUMNS="160")
        top_pct = run_pty([slipway, "top", "observe-bench"], window, top_env)
        peer_top_pct = run_pty(["top", "-b", "-d", "1"], window, top_env)
        print(f"top: slipway top {top_pct:.2f}% of a core, procps top -d 1 {peer_top_pct:.2f}%")

        load_ms = page_load_ms(url, 3)
        print(f"page: drawn {load_ms:.0f} ms after navigation (median of 3)")

        launcher.send_signal(signal.SIGINT)
        launcher.wait(timeout=120)
        print(f"observe: scrape_ms={scrape_ms:.2f} top_cpu_pct={top_pct:.2f} page_load_ms={load_ms:.0f} "
              f"controller_cpu_pct_idle={idle_cost:.2f} prometheus_self_scrape_ms={prom_ms:.2f} "
              f"peer_top_cpu_pct={peer_top_pct:.2f} controller_cpu_pct_base={base:.2f} "
              f"metrics_bytes={size} tasks={tasks + 2}")
        return 0
    finally:
        for p in procs:
            if p.poll() is None:
                try:
                    os.killpg(p.pid, signal.SIGKILL) if p is procs[0] else p.kill()
                except ProcessLookupError:
                    pass
                p.wait()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
