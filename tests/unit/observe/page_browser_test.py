"""unit:observe:page_browser: slipway's live page (observe/page/) in headless
Chromium (Selenium) against a fixture endpoint (page_fixture.py): every node
of the status document is drawn, boxes are sized by replicas and laid out in
layers along the handles (a cycle and a self-handle included), a node whose
tasks change state changes its data-state and colour within 2 s without
moving, a restart shows for 10 s even when it was over before the next
document, every state has its own colour, text from the server is never
markup, the page loads nothing from elsewhere, and a click opens the node's
replicas and events, a click on a replica its log tail (or the server's 401
message without the token).

Usage: page_browser_test.py SOURCE_DIR"""

import os
import sys
import time

SOURCE = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "../../.."))
sys.path.insert(0, os.path.join(SOURCE, "tests", "lib"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from page_browser import Browser  # noqa: E402
from page_fixture import Fixture, node  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402

HOSTILE = '<img src=x onerror="window.pwned=1">'
CHANGE_LIMIT_S = 2.0


def check(condition, message):
    if not condition:
        raise AssertionError(message)


def fixture_program():
    nodes = [
        node("replay", "replay", tasks=2, daemon=True),
        node("learner", handles=["replay"], world=True),
        node("actor", handles=["replay", "learner"], tasks=4, min_=2, max_=4, host="<b>bold</b>"),
        node("evaluator", handles=["learner", "evaluator"]),
        node("ps", handles=["worker"]),
        node("worker", handles=["ps"], tasks=2),
    ]
    nodes[2]["tasks"][3]["state"] = "idle"  # an elastic slot that is not live
    nodes[4]["tasks"][0].update(cpu_seconds=None, rss_bytes=None)  # ps: no usage reported yet
    events = [
        {"seq": 1, "time": "2026-11-28T12:00:00.000Z", "kind": "program_start"},
        {"seq": 2, "time": "2026-11-28T12:00:01.000Z", "kind": "start", "node": "actor", "replica": 0,
         "attempt": 0, "host": "node1"},
        {"seq": 3, "time": "2026-11-28T12:00:02.000Z", "kind": "exit", "node": "learner", "replica": 0,
         "attempt": 0, "epoch": 1, "host": "node1", "cause": "exit 1"},
        {"seq": 4, "time": "2026-11-28T12:00:03.000Z", "kind": "exit", "node": "actor", "replica": 1,
         "attempt": 0, "host": "node1", "cause": HOSTILE},
    ]
    for e in events:
        e["program"] = "impala"
    logs = {"actor.0": "actor 0 starts\nepisode 1 return 3.5\n"}
    page_dir = os.path.join(SOURCE, "observe", "page")
    return Fixture(page_dir, "impala<script>", nodes, events, logs)


def overlaps(a, b):
    return not (a["x"] + a["width"] <= b["x"] or b["x"] + b["width"] <= a["x"] or
                abs(a["y"] - b["y"]) >= 80)


def test_graph(b, fx):
    drawn = b.nodes()
    check(set(drawn) == {"replay", "learner", "actor", "evaluator", "ps", "worker"},
          f"every node of the status drawn, got {sorted(drawn)}")
    check(all(n["state"] == "running" for n in drawn.values()), f"all running at first: {drawn}")
    check(drawn["actor"]["count"] == "3/2:4", f"actor shows live/MIN:MAX, got {drawn['actor']['count']!r}")
    check(drawn["replay"]["count"] == "2/2", f"replay shows 2/2, got {drawn['replay']['count']!r}")
    check(drawn["actor"]["width"] > drawn["replay"]["width"] > drawn["learner"]["width"],
          "boxes grow with replicas: " + str({k: v["width"] for k, v in drawn.items()}))
    check(drawn["actor"]["x"] < drawn["learner"]["x"] < drawn["replay"]["x"],
          "a node is left of the nodes it handles: " + str({k: v["x"] for k, v in drawn.items()}))
    check(drawn["evaluator"]["x"] < drawn["learner"]["x"], "evaluator left of learner")
    names = sorted(drawn)
    for i, p in enumerate(names):
        for q in names[i + 1:]:
            check(not overlaps(drawn[p], drawn[q]), f"boxes {p} and {q} overlap: {drawn[p]} {drawn[q]}")
    edges = b.js("return [...document.querySelectorAll('#graph path.edge')]"
                 ".map(e => e.dataset.from + '>' + e.dataset.to).sort()")
    check(edges == sorted(["learner>replay", "actor>replay", "actor>learner", "evaluator>learner",
                           "evaluator>evaluator", "ps>worker", "worker>ps"]), f"an arrow per handle: {edges}")
    # No arrow runs through a box it does not connect (actor -> replay skips
    # learner's layer: it must go around it).
    crossings = b.js("""
        const boxes = [...document.querySelectorAll('#graph g.node')].map(g => {
          const m = /translate\\(([-0-9.]+)[ ,]+([-0-9.]+)\\)/.exec(g.getAttribute('transform'));
          const r = g.querySelector('rect.box');
          return {name: g.dataset.node, x: +m[1], y: +m[2], w: r.width.baseVal.value, h: r.height.baseVal.value};
        });
        const out = [];
        for (const e of document.querySelectorAll('#graph path.edge')) {
          const len = e.getTotalLength();
          for (const b of boxes) {
            if (b.name === e.dataset.from || b.name === e.dataset.to) continue;
            for (let i = 0; i <= 100; i++) {
              const p = e.getPointAtLength(len * i / 100);
              if (p.x > b.x + 2 && p.x < b.x + b.w - 2 && p.y > b.y + 2 && p.y < b.y + b.h - 2) {
                out.push(e.dataset.from + '>' + e.dataset.to + ' through ' + b.name); break;
              }
            }
          }
        }
        return out;""")
    check(crossings == [], f"arrows through boxes: {crossings}")
    check(b.js("return [...document.querySelectorAll('#graph path.edge')].every("
               "e => !/NaN|undefined/.test(e.getAttribute('d')))"), "every arrow has a finite path")
    usage = b.js("return Object.fromEntries([...document.querySelectorAll('#graph g.node')].map("
                 "g => [g.dataset.node, g.querySelector('text.usage').textContent]))")
    check(usage["ps"] == "", f"no usage shown before a task reported it, got {usage['ps']!r}")
    check(usage["actor"].startswith("cpu ") and usage["actor"].endswith("MiB"), f"actor's usage, got {usage['actor']!r}")
    first = b.js("return window.slipwayFirstDrawMs")
    check(isinstance(first, (int, float)) and first > 0, f"slipwayFirstDrawMs set, got {first!r}")
    print(f"ok: graph of 6 nodes drawn, first draw at {first:.0f} ms")


def test_header_and_escaping(b, fx):
    check(b.js("return document.getElementById('program').textContent") == "impala<script>",
          "the program name as text")
    check(b.text("#resume") == "2", "resume count shown")
    check(b.text("#uptime").startswith("1h 02m"), f"uptime, got {b.text('#uptime')!r}")
    check(b.text("#tasks") == "10 running of 10", f"tasks, got {b.text('#tasks')!r}")
    check(b.js("return document.querySelectorAll('img, script:not([src]), b, #header script').length") == 0,
          "no element made from the server's text")
    check(b.js("return window.pwned === undefined"), "no handler of the server's text ran")
    recent = b.js("return document.getElementById('recent-events').textContent")
    check(HOSTILE in recent, "a hostile cause is shown as text in the recent events")
    foreign = b.js("return performance.getEntriesByType('resource').map(r => r.name)"
                   ".filter(n => !n.startsWith(location.origin))")
    check(foreign == [], f"nothing loaded from elsewhere: {foreign}")
    print("ok: header, and the server's text is text")


def wait_state(b, name, state, before_fill):
    (found, elapsed) = b.wait_until(
        f"{name} drawn {state} in a new colour",
        lambda: (lambda n: n if n["state"] == state and n["fill"] != before_fill else None)(b.nodes()[name]),
        CHANGE_LIMIT_S + 3)
    check(elapsed <= CHANGE_LIMIT_S, f"{name} turned {state} after {elapsed:.2f} s, more than {CHANGE_LIMIT_S} s")
    return found, elapsed


def test_state_changes(b, fx):
    before = b.nodes()
    fills = {"running": before["learner"]["fill"]}
    fx.set_task("learner", 0, state="failed",
                last_exit={"replica": 0, "attempt": 0, "status": "signal 9 (SIGKILL)", "unix_ms": fx.unix_ms})
    learner, elapsed = wait_state(b, "learner", "failed", fills["running"])
    fills["failed"] = learner["fill"]
    print(f"ok: learner failed -> drawn failed after {elapsed:.2f} s")
    previous = "failed"
    for state in ("backoff", "pending", "finished", "running"):
        task_state = "succeeded" if state == "finished" else state
        fx.set_task("learner", 0, state=task_state)
        learner, elapsed = wait_state(b, "learner", state, fills[previous])
        fills[state] = learner["fill"]
        previous = state
        print(f"ok: learner {task_state} -> drawn {state} after {elapsed:.2f} s")
    check(fills["running"] == before["learner"]["fill"], "running again: the first colour again")
    # A restart over before the next document: the restart count went up.
    fx.set_task("evaluator", 0, restarts=1, attempt=1,
                last_exit={"replica": 0, "attempt": 0, "status": "signal 9 (SIGKILL)", "unix_ms": fx.unix_ms})
    evaluator, elapsed = wait_state(b, "evaluator", "restarted", fills["running"])
    fills["restarted"] = evaluator["fill"]
    check(evaluator["restarts"] == "1", f"data-restarts follows, got {evaluator['restarts']!r}")
    print(f"ok: evaluator restarted while running -> drawn restarted after {elapsed:.2f} s")
    fx.advance_clock(10500)
    evaluator, _ = wait_state(b, "evaluator", "running", fills["restarted"])
    check(evaluator["fill"] == fills["running"], "10 s after the restart: running's colour again")
    print("ok: 10 s after, evaluator is drawn running again")
    colours = [fills[s] for s in ("running", "failed", "backoff", "pending", "finished", "restarted")]
    check(len(set(colours)) == 6, f"each state its own colour: {fills}")
    # One failed replica of several is enough to colour the node.
    fx.set_task("worker", 1, state="failed")
    wait_state(b, "worker", "failed", before["worker"]["fill"])
    after = b.nodes()
    check(all(after[n]["transform"] == before[n]["transform"] for n in before), "no box moved between updates")
    print("ok: every state its own colour, boxes stay in place")


def test_panel(b, fx):
    b.node("actor").click()
    b.wait_until("the panel of actor", lambda: b.js(
        "return !document.getElementById('panel').hidden && "
        "document.getElementById('panel-title').textContent === 'actor'"), 5)
    rows = b.js("return [...document.querySelectorAll('#replicas tbody tr')].map("
                "r => [r.dataset.task, r.dataset.state, ...[...r.cells].map(c => c.textContent)])")
    check([r[0] for r in rows] == ["actor.0", "actor.1", "actor.2", "actor.3"], f"a row per replica: {rows}")
    check(rows[3][1] == "idle", f"the idle slot's state, got {rows[3]}")
    check(rows[0][3] == "<b>bold</b>", f"the host as text, got {rows[0][3]!r}")
    check(len(rows[0]) == 2 + 8, f"replica, host, state, attempt, epoch, CPU, RSS, last exit: {rows[0]}")
    check(rows[0][8] == "64 MiB", f"RSS, got {rows[0][8]!r}")
    tasks, _ = b.wait_until("actor's events", lambda: b.js(
        "return [...document.querySelectorAll('#node-events tbody tr')].map(r => r.cells[2].textContent)"), 5)
    check(tasks == ["actor.1", "actor.0"], f"only actor's events, newest first: {tasks}")
    check(HOSTILE in b.text("#node-events"), "the hostile cause as text in the panel")
    check(fx.requested("/api/events?after=0"), f"events asked with after=SEQ: {fx.requested('/api/events')}")
    fx.add_event(kind="restart", node="actor", replica=2, attempt=1, host="node1", cause="exit 1")
    b.wait_until("a new event of actor in the open panel", lambda: b.js(
        "return document.querySelector('#node-events tbody tr td:nth-child(2)').textContent === 'restart'"), 4)
    check(fx.requested("/api/events?after=4"), f"then only the newer ones: {fx.requested('/api/events')}")
    print("ok: a click on actor shows its replicas and its events")

    b.driver.find_element(By.CSS_SELECTOR, '#replicas tr[data-task="actor.0"]').click()
    b.wait_until("actor.0's log", lambda: "episode 1 return 3.5" in b.text("#log"), 5)
    check(fx.requested("/api/log?task=actor.0&bytes=16384"), f"the log asked: {fx.requested('/api/log')}")
    fx.token_required = True
    b.driver.find_element(By.CSS_SELECTOR, '#replicas tr[data-task="actor.1"]').click()
    b.wait_until("the server's 401 message", lambda: "HTTP 401: this needs the program's view token"
                 in b.text("#log"), 5)
    print("ok: a click on a replica shows its log, or why the server refuses it")

    b.driver.find_element(By.CSS_SELECTOR, "body").send_keys(Keys.ESCAPE)
    b.wait_until("the panel closed", lambda: b.js("return document.getElementById('panel').hidden"), 3)
    print("ok: Escape closes the panel")


def main():
    start = time.monotonic()
    with fixture_program() as fx, Browser() as b:
        b.open_drawn(fx.url)
        test_graph(b, fx)
        test_header_and_escaping(b, fx)
        test_state_changes(b, fx)
        test_panel(b, fx)
    print(f"page_browser: all checks passed in {time.monotonic() - start:.1f} s")


if __name__ == "__main__":
    main()
