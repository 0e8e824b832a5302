#!/usr/bin/env bash
# What a running program shows (docs/observe.md), locally: the event record
# of a kill, a restart, a resize, a checkpoint notice and a stop, in order;
# `slipway status --json` (schema 1, usage from the agents); the endpoint's
# /metrics (the restart counted) and /api/status; the view token kept off
# the page. A torch world's restart gives epoch events. Both ways of running
# a task: the launcher's own loop, and slipway-exec.
source "$(dirname "$0")/lib.sh"

json_events() { "$SLIPWAY" events --json "$@"; }
# has_event KIND NODE [REPLICA]: some event of that kind for that task or node.
has_event() {
  json_events observed | /usr/bin/python3 -c '
import json, sys
kind, node = sys.argv[1], sys.argv[2]
replica = int(sys.argv[3]) if len(sys.argv) > 3 else None
for line in sys.stdin:
    e = json.loads(line)
    if e["kind"] == kind and e.get("node", "") == node and (replica is None or e.get("replica") == replica):
        sys.exit(0)
sys.exit(1)' "$@"
}

for inline in 1 0; do
  out="$WORK/out$inline"
  SHOW_ON_FAILURE=$out
  SLIPWAY_INLINE_TASKS=$inline "$SLIPWAY" run "$(topology observed)" --metrics 127.0.0.1:0 >"$out" 2>&1 &
  launcher=$!
  BACKGROUND_PIDS+=("$launcher")
  wait_until 30 grep -q "^slipway: page and metrics of the program: http://127.0.0.1:[0-9]*/$" "$out"
  url=$(grep -o 'http://127.0.0.1:[0-9]*/' "$out" | head -1)
  wait_until 30 pgrep -f "$MARKER-learner"
  wait_until 30 has_event start learner 0

  # A kill: its exit, then its restart as attempt 1.
  pkill -9 -f "$MARKER-learner"
  wait_until 30 has_event restart learner 0
  # A resize, asked by the command.
  "$SLIPWAY" scale actor 3
  wait_until 30 has_event resize actor
  # A notice without a stop.
  "$SLIPWAY" checkpoint observed
  wait_until 30 has_event notice ""

  # The status document, as the launcher published it.
  wait_until 30 bash -c '"$0" status --json observed | /usr/bin/python3 -c "
import json, sys
d = json.load(sys.stdin)
assert d[\"schema\"] == 1 and d[\"program\"] == \"observed\" and d[\"state\"] == \"running\", d
nodes = {n[\"name\"]: n for n in d[\"nodes\"]}
assert set(nodes) == {\"actor\", \"learner\", \"burner\"}, nodes.keys()
assert nodes[\"actor\"][\"replicas\"] == 3 and nodes[\"actor\"][\"elastic\"], nodes[\"actor\"]
assert nodes[\"learner\"][\"tasks\"][0][\"attempt\"] == 1 and nodes[\"learner\"][\"restarts\"] == 1
last = nodes[\"learner\"][\"tasks\"][0][\"last_exit\"][\"status\"]
assert last.startswith(\"killed by signal 9\") or last == \"exited with status 137\", last
assert nodes[\"learner\"][\"handles\"] == [\"burner\"]
burner = nodes[\"burner\"][\"tasks\"][0]
assert burner[\"cpu_seconds\"] is not None and burner[\"cpu_seconds\"] > 0.5, burner
assert burner[\"rss_bytes\"] > 1000000, burner
assert any(e[\"kind\"] == \"resize\" for e in d[\"events\"])
"' "$SLIPWAY"

  # The endpoint: the restart counted; the status; no secret, no token.
  metrics=$(/usr/bin/python3 -c 'import sys, urllib.request; print(urllib.request.urlopen(sys.argv[1] + "metrics").read().decode())' "$url")
  grep -q '^slipway_task_restarts_total{program="observed",node="learner",replica="0"} 1$' <<<"$metrics" ||
    fail "no restart counted in /metrics: $metrics"
  grep -q '^slipway_task_up{program="observed",node="actor",replica="2"} 1$' <<<"$metrics" || fail "actor.2 not up: $metrics"
  grep -q '^slipway_node_replicas{program="observed",node="actor",state="running"} 3$' <<<"$metrics" ||
    fail "the resize is not in /metrics"
  run_dir=$(ls -d "$SLIPWAY_RUN_ROOT"/observed-* | tail -1)
  secret=$(awk '$1 == "token" {print $2}' "$run_dir/rendezvous")
  token=$(cat "$run_dir/observe-token")
  status_doc=$(/usr/bin/python3 -c 'import sys, urllib.request; print(urllib.request.urlopen(sys.argv[1] + "api/status").read().decode())' "$url")
  for s in "$secret" "$token"; do
    [ "${#s}" -eq 64 ] || fail "no 64-digit secret or token found in $run_dir"
    ! grep -q "$s" <<<"$metrics$status_doc" || fail "the secret or the view token is served"
  done
  [ -f "$SLIPWAY_RUN_ROOT/.prometheus-$(basename "$run_dir").json" ] || fail "no file_sd target file"

  "$SLIPWAY" stop observed
  wait_for_exit "$launcher"
  expect_status 0
  [ ! -e "$SLIPWAY_RUN_ROOT/.prometheus-$(basename "$run_dir").json" ] || fail "the target file outlived the run"

  # In order: the kill's exit before its restart, the stop, the end last.
  json_events observed | /usr/bin/python3 -c '
import json, sys
events = [json.loads(line) for line in sys.stdin]
seqs = [e["seq"] for e in events]
assert seqs == list(range(1, len(events) + 1)), seqs
kinds = [(e["kind"], e.get("node", ""), e.get("replica"), e.get("attempt")) for e in events]
def at(kind, node="", replica=None, attempt=None):
    for i, k in enumerate(kinds):
        if k[0] == kind and k[1] == node and (replica is None or k[2] == replica) and (attempt is None or k[3] == attempt):
            return i
    raise AssertionError(f"no {kind} {node} {replica} {attempt} in {kinds}")
assert at("program_start") == 0
killed = at("exit", "learner", 0, 0)
assert "signal 9" in events[killed]["cause"] or "status 137" in events[killed]["cause"], events[killed]
assert at("start", "learner", 0, 0) < killed < at("restart", "learner", 0, 1)
resize = at("resize", "actor")
assert "slipway scale" in events[resize]["cause"] and "(1 -> 3 replicas)" in events[resize]["cause"], events[resize]
assert resize < at("start", "actor", 2)
assert at("notice") < at("stop") < at("program_end") == len(events) - 1
assert "exit status 0" in events[-1]["cause"], events[-1]
for e in events:
    assert e["program"] == "observed" and e["time"].endswith("Z")
'
  "$SLIPWAY" events observed | grep -qE '^TIME +KIND +TASK' || fail "slipway events prints no header"
  "$SLIPWAY" events observed --node learner | grep -q ' restart .* learner\.0 ' || fail "slipway events --node"
  no_survivors || fail "tasks outlived the launcher"
  rm -rf "$SLIPWAY_RUN_ROOT"
done

# A torch world's restart: an epoch event, and every rank restarted in it.
/usr/bin/python3 -c "import torch.distributed" || fail "python3-torch is not installed (scripts/setup.sh installs it)"
run_slipway "$WORK/torch" run "$(topology torch_world)"
expect_status 0
json_events torch-world | /usr/bin/python3 -c '
import json, sys
events = [json.loads(line) for line in sys.stdin]
epochs = [e for e in events if e["kind"] == "epoch"]
assert [e["epoch"] for e in epochs] == [0, 1], epochs
assert "restarts as epoch 1" in epochs[1]["cause"], epochs[1]
restarts = [e for e in events if e["kind"] == "restart"]
assert sorted(e["replica"] for e in restarts) == [0, 1, 2] and all(e["epoch"] == 1 for e in restarts), restarts
assert events.index(epochs[1]) < events.index(restarts[0])
'
echo PASS
