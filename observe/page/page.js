// slipway's live page (index.html): polls the status document
// (/api/status, docs/observe.md) every second and draws the program graph
// in SVG, one box per node coloured by its tasks' states, an arrow per
// handle; a click on a node opens its replicas and events
// (/api/events?after=SEQ), a click on a replica its log tail (/api/log).
//
// Rules: every text from the server goes in with textContent or an
// attribute, never as markup. The layout depends on the topology only
// (names, handles, types, MIN:MAX), so boxes stay where they are while
// states and counts change. window.slipwayFirstDrawMs and
// document.body.dataset.drawn = "1" mark the first complete draw (the
// browser test and slipway-bench read them).
"use strict";

(function () {
  const POLL_MS = 1000;
  const RETRY_MS = 250;                // the same document again: ask sooner,
  const MAX_RETRIES = 4;               // up to this many times in a row
  const LOG_POLL_MS = 2000;
  const LOG_BYTES = 16384;
  const EVENTS_PER_REQUEST = 500;     // the server's most per request
  const EVENT_PAGES_PER_TICK = 10;
  const MAX_EVENTS = 5000;            // kept in the page, newest
  const MAX_PANEL_EVENTS = 200;
  const MAX_RESPONSE_CHARS = 8 << 20; // a status document larger than this is refused
  const SVG_NS = "http://www.w3.org/2000/svg";

  // Box geometry (SVG user units = CSS pixels).
  const BOX_H = 86;
  const BOX_MIN_W = 170;
  const BOX_MAX_W = 330;
  const BOX_W_PER_LOG2 = 30;  // width grows with log2(max replicas)
  const LAYER_GAP = 80;
  const ROW_GAP = 26;
  const MARGIN = 20;
  const TOP = 60;             // room above the first row for arcs and loops

  // The order of a node's state bar, left to right.
  const RESTART_MARK_MS = 10000;  // a node that restarted is drawn "restarted" this long

  const BAR_STATES = ["running", "pending", "backoff", "failed", "succeeded", "stopped"];

  const view = {
    status: null,
    signature: "",
    boxes: new Map(),        // node name -> {group, texts, bar, width}
    selected: null,          // node name whose panel is open
    selectedTask: null,      // "NODE.REPLICA" whose log is shown
    events: [],              // from /api/events, oldest first
    lastSeq: 0,
    eventsBusy: false,
    logBusy: false,
    lastLogFetch: 0,
    rates: new Map(),        // cpu key -> {cpu, t, rate}
    restarts: new Map(),     // node name -> {restarts, at: unix_ms it went up, or null}
    drawn: false,
    retries: 0,              // same documents in a row
  };

  // ---------------------------------------------------------------- helpers

  function $(id) { return document.getElementById(id); }

  function html(tag, attrs, text) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, String(v));
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }

  function svg(tag, attrs, text) {
    const e = document.createElementNS(SVG_NS, tag);
    for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, String(v));
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }

  function clear(e) { while (e.firstChild) e.removeChild(e.firstChild); }

  function num(v) { return typeof v === "number" && isFinite(v) ? v : null; }

  function str(v) { return typeof v === "string" ? v : v === null || v === undefined ? "" : String(v); }

  // Sets an SVG text, cut with "…" to `width` as drawn; measured only when
  // the text changes.
  function setFitted(e, text, width) {
    if (e.getAttribute("data-full") === text) return;
    e.setAttribute("data-full", text);
    e.textContent = text;
    if (e.getComputedTextLength() <= width) return;
    let lo = 0, hi = text.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      e.textContent = text.slice(0, mid) + "…";
      if (e.getComputedTextLength() <= width) lo = mid; else hi = mid - 1;
    }
    e.textContent = text.slice(0, lo) + "…";
  }

  function fmtBytes(b) {
    b = num(b);
    if (b === null) return "–";
    const units = ["B", "KiB", "MiB", "GiB", "TiB"];
    let i = 0;
    while (b >= 1024 && i < units.length - 1) { b /= 1024; i++; }
    return (i === 0 ? String(b) : b.toFixed(b < 10 ? 1 : 0)) + " " + units[i];
  }

  function fmtDuration(ms) {
    ms = num(ms);
    if (ms === null || ms < 0) return "–";
    let s = Math.floor(ms / 1000);
    const d = Math.floor(s / 86400); s -= d * 86400;
    const h = Math.floor(s / 3600); s -= h * 3600;
    const m = Math.floor(s / 60); s -= m * 60;
    const two = (x) => String(x).padStart(2, "0");
    if (d > 0) return d + "d " + two(h) + "h " + two(m) + "m";
    if (h > 0) return h + "h " + two(m) + "m " + two(s) + "s";
    if (m > 0) return m + "m " + two(s) + "s";
    return s + "s";
  }

  function fmtClock(time) {
    // events.jsonl's "time" is ISO 8601 UTC; shown in the browser's zone.
    const d = new Date(time);
    if (isNaN(d.getTime())) return str(time);
    return d.toLocaleTimeString([], { hour12: false });
  }

  function fmtPercent(rate) {
    return rate === null ? "–" : (rate * 100).toFixed(rate < 0.1 ? 1 : 0) + "%";
  }

  function fmtExit(e) {
    if (!e || typeof e !== "object") return "";
    const parts = [str(e.status)];
    if (num(e.attempt) !== null) parts.push("attempt " + e.attempt);
    return parts.join(", ");
  }

  function counts(node) {
    const s = node.states && typeof node.states === "object" ? node.states : {};
    const c = {};
    for (const k of ["pending", "running", "backoff", "succeeded", "failed", "stopped", "idle"]) {
      c[k] = num(s[k]) || 0;
    }
    return c;
  }

  // One word for a node's colour: any failed task makes it failed, then a
  // task waiting to restart (backoff), then one not running yet; then
  // "restarted" for RESTART_MARK_MS after its restart count went up (a
  // restart is often over before the next document: the colour still
  // shows it); running once every live task runs; finished when none is
  // left to run.
  function nodeState(node) {
    const c = counts(node);
    if (c.failed > 0) return "failed";
    if (c.backoff > 0) return "backoff";
    if (c.pending > 0) return "pending";
    const seen = view.restarts.get(node.name);
    const now = view.status ? num(view.status.unix_ms) : null;
    if (c.running > 0 && seen && seen.at !== null && now !== null && now - seen.at < RESTART_MARK_MS) {
      return "restarted";
    }
    if (c.running > 0) return "running";
    if (c.succeeded + c.stopped > 0) return "finished";
    return "pending";
  }

  // When the page saw a node's restart count go up (the document's time).
  function noteRestarts(node, unixMs) {
    const restarts = num(node.restarts) || 0;
    const seen = view.restarts.get(node.name);
    const at = seen && restarts > seen.restarts && num(unixMs) !== null ? unixMs : seen ? seen.at : null;
    view.restarts.set(node.name, { restarts: restarts, at: at });
  }

  function replicaText(node) {
    const live = num(node.replicas);
    const min = num(node.min), max = num(node.max);
    const range = min !== null && max !== null && min !== max ? min + ":" + max : str(max !== null ? max : min);
    return (live === null ? "?" : live) + "/" + range;
  }

  // CPU as a share of one core, from two samples of cumulative seconds.
  function cpuRate(key, cpu, unixMs) {
    cpu = num(cpu); unixMs = num(unixMs);
    if (cpu === null || unixMs === null) { view.rates.delete(key); return null; }
    const prev = view.rates.get(key);
    let rate = prev ? prev.rate : null;
    if (prev && unixMs > prev.t) rate = cpu >= prev.cpu ? (cpu - prev.cpu) / ((unixMs - prev.t) / 1000) : null;
    if (!prev || unixMs > prev.t) view.rates.set(key, { cpu: cpu, t: unixMs, rate: rate });
    return rate;
  }

  async function fetchText(url) {
    const r = await fetch(url, { cache: "no-store", credentials: "same-origin" });
    const text = await r.text();
    return { ok: r.ok, status: r.status, text: text.length > MAX_RESPONSE_CHARS ? "" : text };
  }

  // -------------------------------------------------------------- the layout

  // Nodes' layers: longest path over the handles (a node left of every node
  // it handles), cycles broken at the edges a depth-first walk in file
  // order finds going back; rows within a layer by the mean row of the
  // nodes handling them (two sweeps), ties in file order.
  function computeLayout(nodes) {
    const index = new Map();
    nodes.forEach((n, i) => index.set(n.name, i));
    const out = nodes.map((n) => {
      const targets = [];
      for (const h of Array.isArray(n.handles) ? n.handles : []) {
        const j = index.get(h);
        if (j !== undefined && !targets.includes(j)) targets.push(j);
      }
      return targets;
    });
    // Depth-first walk (iterative): back edges close cycles; the reverse of
    // the finishing order is a topological order of the rest.
    const colour = new Array(nodes.length).fill(0);  // 0 new, 1 on the path, 2 done
    const back = new Set();
    const finished = [];
    for (let root = 0; root < nodes.length; root++) {
      if (colour[root] !== 0) continue;
      const stack = [[root, 0]];
      colour[root] = 1;
      while (stack.length > 0) {
        const top = stack[stack.length - 1];
        const [u, k] = top;
        if (k < out[u].length) {
          top[1]++;
          const v = out[u][k];
          if (colour[v] === 1) back.add(u + ">" + v);
          else if (colour[v] === 0) { colour[v] = 1; stack.push([v, 0]); }
        } else {
          colour[u] = 2;
          finished.push(u);
          stack.pop();
        }
      }
    }
    const layer = new Array(nodes.length).fill(0);
    const preds = nodes.map(() => []);
    for (const u of finished.slice().reverse()) {
      for (const v of out[u]) {
        if (back.has(u + ">" + v) || u === v) continue;
        layer[v] = Math.max(layer[v], layer[u] + 1);
        preds[v].push(u);
      }
    }
    const layerCount = nodes.length === 0 ? 0 : Math.max(...layer) + 1;
    const rows = [];
    for (let l = 0; l < layerCount; l++) rows.push([]);
    nodes.forEach((n, i) => rows[layer[i]].push(i));
    const pos = new Array(nodes.length).fill(0);
    const place = () => rows.forEach((r) => r.forEach((i, p) => { pos[i] = p; }));
    place();
    for (let sweep = 0; sweep < 2; sweep++) {
      for (let l = 1; l < layerCount; l++) {
        const key = (i) => {
          const ps = preds[i].filter((u) => layer[u] === l - 1);
          return ps.length === 0 ? pos[i] : ps.reduce((a, u) => a + pos[u], 0) / ps.length;
        };
        const keys = new Map(rows[l].map((i) => [i, key(i)]));
        rows[l].sort((a, b) => keys.get(a) - keys.get(b) || a - b);
        place();
      }
    }
    const width = nodes.map((n) => {
      const max = Math.max(1, num(n.max) || num(n.replicas) || 1);
      return Math.round(Math.min(BOX_MAX_W, BOX_MIN_W + BOX_W_PER_LOG2 * Math.log2(max)));
    });
    const colW = rows.map((r) => Math.max(0, ...r.map((i) => width[i])));
    const tallest = Math.max(0, ...rows.map((r) => r.length));
    const boxes = new Array(nodes.length);
    let x = MARGIN;
    rows.forEach((r, l) => {
      const offset = ((tallest - r.length) * (BOX_H + ROW_GAP)) / 2;
      r.forEach((i, p) => {
        boxes[i] = {
          x: x + (colW[l] - width[i]) / 2,
          y: TOP + offset + p * (BOX_H + ROW_GAP),
          w: width[i],
          layer: l,
        };
      });
      x += colW[l] + LAYER_GAP;
    });
    const edges = [];
    nodes.forEach((n, u) => {
      for (const v of out[u]) {
        edges.push({ from: u, to: v, back: u === v || layer[v] <= layer[u], span: layer[v] - layer[u] });
      }
    });
    return {
      boxes: boxes,
      edges: edges,
      width: Math.max(x - LAYER_GAP + MARGIN, 2 * MARGIN),
      height: TOP + MARGIN + tallest * (BOX_H + ROW_GAP) - (tallest > 0 ? ROW_GAP : 0) + 40,
    };
  }

  function edgePath(a, b, self, back, span) {
    if (self) {  // out of the top edge, back into the right edge
      const x1 = a.x + a.w - 26, y2 = a.y + 22, r = a.x + a.w;
      return `M ${x1} ${a.y} C ${x1} ${a.y - 30}, ${r + 30} ${y2}, ${r} ${y2}`;
    }
    if (!back && span > 1) {  // over the layers between: an arc above, into the top
      const x1 = a.x + a.w * 0.7, x2 = b.x + b.w * 0.3;
      const top = Math.min(a.y, b.y) - 44 - 4 * Math.min(span, 4);
      return `M ${x1} ${a.y} C ${x1} ${top}, ${x2} ${top}, ${x2} ${b.y}`;
    }
    if (!back) {
      const x1 = a.x + a.w, y1 = a.y + BOX_H / 2, x2 = b.x, y2 = b.y + BOX_H / 2;
      const dx = Math.max(30, (x2 - x1) / 2);
      return `M ${x1} ${y1} C ${x1 + dx} ${y1}, ${x2 - dx} ${y2}, ${x2} ${y2}`;
    }
    // Against the layers: under both boxes.
    const x1 = a.x + a.w / 2, y1 = a.y + BOX_H, x2 = b.x + b.w / 2 + 12, y2 = b.y + BOX_H;
    const dip = Math.max(y1, y2) + 36;
    return `M ${x1} ${y1} C ${x1} ${dip}, ${x2} ${dip}, ${x2} ${y2}`;
  }

  function signature(nodes) {
    return JSON.stringify(nodes.map((n) => [n.name, n.type, n.min, n.max, n.daemon, n.handles]));
  }

  // Builds the SVG for the topology; update() fills in states and counts.
  function build(nodes) {
    const graph = $("graph");
    clear(graph);
    view.boxes.clear();
    const layout = computeLayout(nodes);
    graph.setAttribute("viewBox", `0 0 ${layout.width} ${layout.height}`);
    graph.setAttribute("width", String(layout.width));
    graph.setAttribute("height", String(layout.height));
    const defs = svg("defs");
    const marker = svg("marker", {
      id: "arrow", viewBox: "0 0 10 10", refX: "9", refY: "5",
      markerWidth: "7", markerHeight: "7", orient: "auto-start-reverse",
    });
    marker.appendChild(svg("path", { d: "M 0 0 L 10 5 L 0 10 z", class: "arrowhead" }));
    defs.appendChild(marker);
    graph.appendChild(defs);
    const edgeLayer = svg("g", { class: "edges" });
    for (const e of layout.edges) {
      const path = svg("path", {
        class: "edge" + (e.back ? " back" : ""),
        d: edgePath(layout.boxes[e.from], layout.boxes[e.to], e.from === e.to, e.back, e.span),
        "marker-end": "url(#arrow)",
        "data-from": nodes[e.from].name,
        "data-to": nodes[e.to].name,
      });
      path.appendChild(svg("title", {}, nodes[e.from].name + " handles " + nodes[e.to].name));
      edgeLayer.appendChild(path);
    }
    graph.appendChild(edgeLayer);
    const nodeLayer = svg("g", { class: "nodes" });
    nodes.forEach((n, i) => {
      const b = layout.boxes[i];
      const g = svg("g", {
        class: "node" + (n.daemon ? " daemon" : ""),
        transform: `translate(${b.x} ${b.y})`,
        tabindex: "0",
        role: "button",
        "data-node": str(n.name),
      });
      const title = svg("title", {}, n.name);
      const rect = svg("rect", { class: "box", width: b.w, height: BOX_H, rx: 7, ry: 7 });
      const name = svg("text", { class: "name", x: 10, y: 20 });
      const count = svg("text", { class: "count", x: b.w - 10, y: 20, "text-anchor": "end" });
      const detail = svg("text", { class: "detail", x: 10, y: 40 });
      const usage = svg("text", { class: "usage", x: 10, y: 58 });
      const bar = svg("g", { class: "bar", transform: `translate(10 ${BOX_H - 18})` });
      for (const e of [title, rect, name, count, detail, usage, bar]) g.appendChild(e);
      g.addEventListener("click", () => select(n.name));
      g.addEventListener("keydown", (ev) => {
        if (ev.key === "Enter" || ev.key === " ") { ev.preventDefault(); select(n.name); }
      });
      nodeLayer.appendChild(g);
      view.boxes.set(n.name, { group: g, title, name, count, detail, usage, bar, width: b.w });
    });
    graph.appendChild(nodeLayer);
  }

  function drawBar(bar, c, width) {
    clear(bar);
    const w = width - 20;
    bar.appendChild(svg("rect", { class: "track", width: w, height: 8, rx: 2 }));
    const total = BAR_STATES.reduce((a, k) => a + c[k], 0);
    if (total === 0) return;
    let x = 0;
    for (const k of BAR_STATES) {
      if (c[k] === 0) continue;
      const part = (c[k] / total) * w;
      const seg = svg("rect", { class: "seg", "data-state": k, x: x, width: Math.max(part, 1), height: 8 });
      seg.appendChild(svg("title", {}, c[k] + " " + k));
      bar.appendChild(seg);
      x += part;
    }
  }

  function updateNode(n, unixMs) {
    const box = view.boxes.get(n.name);
    if (!box) return;
    noteRestarts(n, unixMs);
    const state = nodeState(n);
    const c = counts(n);
    box.group.setAttribute("data-state", state);
    box.group.setAttribute("data-restarts", String(num(n.restarts) || 0));
    box.count.textContent = replicaText(n);
    setFitted(box.name, str(n.name), box.width - 20 - box.count.getComputedTextLength() - 8);
    const detail = [str(n.type)];
    if (n.daemon) detail.push("daemon");
    if (num(n.restarts)) detail.push("restarts " + n.restarts);
    if (num(n.epoch) !== null) detail.push("epoch " + n.epoch);
    setFitted(box.detail, detail.join(" · "), box.width - 20);
    const rate = cpuRate("node:" + n.name, n.cpu_seconds, unixMs);
    // The sums are 0 until a task's agent has reported its usage: shown then.
    const reported = (Array.isArray(n.tasks) ? n.tasks : []).some((t) => num(t.cpu_seconds) !== null);
    const usage = [];
    if (reported && num(n.cpu_seconds) !== null) usage.push("cpu " + fmtPercent(rate));
    if (reported && num(n.rss_bytes) !== null) usage.push(fmtBytes(n.rss_bytes));
    setFitted(box.usage, usage.join(" · "), box.width - 20);
    const lines = [n.name + " (" + str(n.type) + ")", replicaText(n) + " live/MIN:MAX", state];
    for (const k of Object.keys(c)) if (c[k] > 0) lines.push(c[k] + " " + k);
    if (n.last_exit) lines.push("last exit: replica " + str(n.last_exit.replica) + ", " + fmtExit(n.last_exit));
    box.title.textContent = lines.join("\n");
    drawBar(box.bar, c, box.width);
  }

  // -------------------------------------------------------------- the header

  function updateHeader(st) {
    $("program").textContent = str(st.program);
    document.title = str(st.program) + " · slipway";
    $("run").textContent = str(st.run);
    const state = str(st.state) + (st.stop_reason ? " (" + str(st.stop_reason) + ")" : "");
    $("state").textContent = state;
    $("state").setAttribute("data-state", str(st.state));
    $("resume").textContent = String(num(st.resume) || 0);
    const now = num(st.unix_ms), started = num(st.started_unix_ms);
    $("uptime").textContent = now === null || started === null ? "–" : fmtDuration(now - started);
    let live = 0, running = 0;
    for (const n of st.nodes) { live += num(n.replicas) || 0; running += counts(n).running; }
    $("tasks").textContent = running + " running of " + live;
  }

  function setConnection(ok, message) {
    const c = $("connection");
    c.setAttribute("data-ok", ok ? "1" : "0");
    c.textContent = message;
  }

  function eventRow(e) {
    const task = e.node === undefined ? "" : str(e.node) + (e.replica === undefined ? "" : "." + str(e.replica));
    const tr = html("tr", { "data-kind": str(e.kind) });
    for (const v of [fmtClock(e.time), e.kind, task, e.attempt, e.epoch, e.host, e.cause]) {
      tr.appendChild(html("td", {}, str(v)));
    }
    return tr;
  }

  function fillEvents(tbody, events) {
    clear(tbody);
    for (const e of events) tbody.appendChild(eventRow(e));
  }

  // ---------------------------------------------------------------- the panel

  function select(name) {
    if (view.selected !== name) { view.selectedTask = null; $("log-section").hidden = true; }
    view.selected = name;
    $("panel").hidden = false;
    for (const [n, box] of view.boxes) box.group.classList.toggle("selected", n === name);
    updatePanel();
    pollEvents();
  }

  function closePanel() {
    view.selected = null;
    view.selectedTask = null;
    $("panel").hidden = true;
    $("log-section").hidden = true;
    for (const box of view.boxes.values()) box.group.classList.remove("selected");
  }

  function selectTask(task) {
    view.selectedTask = task;
    $("log-section").hidden = false;
    $("log-title").textContent = "Log of " + task + " (last " + LOG_BYTES / 1024 + " KiB)";
    $("log").textContent = "loading…";
    view.lastLogFetch = 0;
    updatePanel();
    pollLog(true);
  }

  function updatePanel() {
    const st = view.status;
    if (!st || view.selected === null) return;
    const node = st.nodes.find((n) => n.name === view.selected);
    if (!node) {
      $("panel-title").textContent = view.selected;
      $("panel-summary").textContent = "not in this program's status";
      return;
    }
    $("panel-title").textContent = node.name;
    const summary = [str(node.type), replicaText(node) + " live/MIN:MAX", nodeState(node)];
    if (node.elastic) summary.push("elastic");
    if (node.world) summary.push("world" + (num(node.epoch) !== null ? " epoch " + node.epoch : ""));
    summary.push("restarts " + (num(node.restarts) || 0));
    if (Array.isArray(node.handles) && node.handles.length) summary.push("handles " + node.handles.join(", "));
    $("panel-summary").textContent = summary.join(" · ");

    // Rows are updated in place while the replicas stay the same, so that a
    // click is not lost to a redraw.
    const tbody = $("replicas").querySelector("tbody");
    const tasks = Array.isArray(node.tasks) ? node.tasks : [];
    const names = tasks.map((t) => node.name + "." + str(t.replica));
    const rows = [...tbody.rows];
    if (rows.length !== names.length || rows.some((r, i) => r.getAttribute("data-task") !== names[i])) {
      clear(tbody);
      for (const task of names) {
        const tr = html("tr", { "data-task": task, tabindex: "0" });
        for (let i = 0; i < 8; i++) tr.appendChild(html("td", i === 2 ? { class: "state" } : {}));
        tr.addEventListener("click", () => selectTask(task));
        tr.addEventListener("keydown", (ev) => { if (ev.key === "Enter") selectTask(task); });
        tbody.appendChild(tr);
      }
    }
    tasks.forEach((t, row) => {
      const tr = tbody.rows[row];
      const sample = view.rates.get("task:" + names[row]);
      const rate = sample ? sample.rate : null;
      const cpu = num(t.cpu_seconds) === null ? "–" : fmtPercent(rate) + " (" + t.cpu_seconds.toFixed(1) + " s)";
      const cells = [t.replica, t.host, t.state, t.attempt, t.epoch, cpu, fmtBytes(t.rss_bytes), fmtExit(t.last_exit)];
      cells.forEach((v, i) => { tr.cells[i].textContent = str(v); });
      tr.setAttribute("data-state", str(t.state));
      tr.classList.toggle("selected", names[row] === view.selectedTask);
    });

    const shards = (Array.isArray(st.replay) ? st.replay : []).filter((r) => str(r.task).startsWith(node.name + "."));
    $("replay-section").hidden = shards.length === 0;
    const rbody = $("replay-tables").querySelector("tbody");
    clear(rbody);
    for (const r of shards) {
      for (const t of Array.isArray(r.tables) ? r.tables : []) {
        const parked = (num(t.parked_inserts) || 0) + (num(t.parked_samples) || 0);
        const checkpoint = num(r.last_checkpoint_unix_ms) === null ? "none"
          : fmtDuration(num(st.unix_ms) - r.last_checkpoint_unix_ms) + " ago";
        const cells = [r.task, t.name, str(t.size) + " / " + str(t.max_size), t.inserted_total, t.sampled_total, parked, checkpoint];
        const tr = html("tr");
        for (const v of cells) tr.appendChild(html("td", {}, str(v)));
        rbody.appendChild(tr);
      }
    }

    const mine = [];
    for (let i = view.events.length - 1; i >= 0 && mine.length < MAX_PANEL_EVENTS; i--) {
      if (view.events[i].node === node.name) mine.push(view.events[i]);
    }
    fillEvents($("node-events").querySelector("tbody"), mine);
  }

  // ------------------------------------------------------------------ polling

  // New events, only while a panel shows them and the status says there
  // are some (its newest events carry their seq).
  async function pollEvents() {
    const st = view.status;
    if (view.eventsBusy || view.selected === null || !st) return;
    const recent = Array.isArray(st.events) ? st.events : [];
    const newest = recent.length ? num(recent[recent.length - 1].seq) || 0 : 0;
    if (newest < view.lastSeq) { view.events = []; view.lastSeq = 0; }  // a new record (resumed run)
    if (newest <= view.lastSeq) return;
    // Seqs count up by one: a long record is read from its newest MAX_EVENTS.
    if (view.lastSeq === 0 && newest > MAX_EVENTS) view.lastSeq = newest - MAX_EVENTS;
    view.eventsBusy = true;
    try {
      for (let page = 0; page < EVENT_PAGES_PER_TICK; page++) {
        const r = await fetchText("api/events?after=" + view.lastSeq);
        if (!r.ok) break;
        const list = JSON.parse(r.text);
        if (!Array.isArray(list) || list.length === 0) break;
        for (const e of list) {
          if (e && typeof e === "object" && num(e.seq) !== null && e.seq > view.lastSeq) {
            view.events.push(e);
            view.lastSeq = e.seq;
          }
        }
        if (view.events.length > MAX_EVENTS) view.events.splice(0, view.events.length - MAX_EVENTS);
        if (list.length < EVENTS_PER_REQUEST) break;
      }
    } catch (err) {
      // The next tick tries again; the status line says whether the endpoint answers.
    } finally {
      view.eventsBusy = false;
    }
    updatePanel();
  }

  async function pollLog(force) {
    const task = view.selectedTask;
    if (task === null || view.logBusy) return;
    const now = performance.now();
    if (!force && now - view.lastLogFetch < LOG_POLL_MS) return;
    view.logBusy = true;
    view.lastLogFetch = now;
    try {
      const r = await fetchText("api/log?task=" + encodeURIComponent(task) + "&bytes=" + LOG_BYTES);
      if (task !== view.selectedTask) return;
      const pre = $("log");
      const atBottom = pre.scrollTop + pre.clientHeight >= pre.scrollHeight - 4;
      pre.setAttribute("data-status", String(r.status));
      pre.textContent = r.ok ? (r.text === "" ? "(empty)" : r.text) : "HTTP " + r.status + ": " + r.text;
      if (atBottom || force) pre.scrollTop = pre.scrollHeight;
    } catch (err) {
      $("log").textContent = "no answer: " + err;
    } finally {
      view.logBusy = false;
    }
  }

  function render(st) {
    const sig = signature(st.nodes);
    if (sig !== view.signature) {
      build(st.nodes);
      view.signature = sig;
      if (view.selected !== null && view.boxes.has(view.selected)) {
        view.boxes.get(view.selected).group.classList.add("selected");
      }
    }
    for (const n of st.nodes) {
      updateNode(n, st.unix_ms);
      for (const t of Array.isArray(n.tasks) ? n.tasks : []) {
        cpuRate("task:" + n.name + "." + str(t.replica), t.cpu_seconds, st.unix_ms);
      }
    }
    updateHeader(st);
    fillEvents($("recent-events").querySelector("tbody"), (Array.isArray(st.events) ? st.events : []).slice().reverse());
    updatePanel();
    if (!view.drawn) {
      view.drawn = true;
      window.slipwayFirstDrawMs = performance.now();
      document.body.dataset.drawn = "1";
    }
  }

  function valid(st) {
    return st && typeof st === "object" && Array.isArray(st.nodes) &&
      st.nodes.every((n) => n && typeof n === "object" && typeof n.name === "string");
  }

  // Every second; sooner again when the launcher has not built a new
  // document yet (it does at most once a second), so that a change shows
  // within about a second of the launcher seeing it.
  async function tick() {
    let next = POLL_MS;
    try {
      const r = await fetchText("api/status");
      if (!r.ok) {
        setConnection(false, "HTTP " + r.status + ": " + r.text.trim());
      } else {
        const st = JSON.parse(r.text);
        if (!valid(st)) throw new Error("not a status document");
        const same = view.status !== null && num(st.unix_ms) !== null && st.unix_ms === view.status.unix_ms;
        view.retries = same ? view.retries + 1 : 0;
        if (same && view.retries <= MAX_RETRIES && st.state !== "finished") next = RETRY_MS;
        view.status = st;
        render(st);
        setConnection(true, "updated " + new Date().toLocaleTimeString([], { hour12: false }));
      }
    } catch (err) {
      setConnection(false, "no answer from the launcher (" + err.message + "); showing the last status");
    }
    pollEvents();
    pollLog(false);
    setTimeout(tick, next);
  }

  document.addEventListener("DOMContentLoaded", () => {
    $("panel-close").addEventListener("click", closePanel);
    document.addEventListener("keydown", (ev) => { if (ev.key === "Escape") closePanel(); });
    tick();
  });
})();
