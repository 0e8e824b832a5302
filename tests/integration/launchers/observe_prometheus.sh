#!/usr/bin/env bash
# A real Prometheus (Debian's) finds a running program through the file_sd
# target files under the run root (docs/observe.md), scrapes its /metrics
# every second, and its query API returns the restart counter after a task
# is killed.
source "$(dirname "$0")/lib.sh"
command -v prometheus >/dev/null || fail "prometheus is not installed (scripts/setup.sh installs it)"

free_port() { /usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
prom_port=$(free_port)
mkdir -p "$WORK/prom"
cat >"$WORK/prometheus.yml" <<YAML
global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: slipway
    file_sd_configs:
      - files: ["$SLIPWAY_RUN_ROOT/.prometheus-*.json"]
        refresh_interval: 1s
YAML
prometheus --config.file="$WORK/prometheus.yml" --storage.tsdb.path="$WORK/prom" \
  --web.listen-address="127.0.0.1:$prom_port" --log.level=warn >"$WORK/prometheus.log" 2>&1 &
BACKGROUND_PIDS+=("$!")

# query EXPR: the value of the first sample of an instant query, or nothing.
query() {
  /usr/bin/python3 - "$prom_port" "$1" <<'PY'
import json, sys, urllib.parse, urllib.request
url = f"http://127.0.0.1:{sys.argv[1]}/api/v1/query?" + urllib.parse.urlencode({"query": sys.argv[2]})
try:
    data = json.load(urllib.request.urlopen(url, timeout=2))
except Exception:
    sys.exit(0)
for r in data.get("data", {}).get("result", []):
    print(r["value"][1])
    break
PY
}
export -f query
export prom_port
# query_is VALUE EXPR: the query's value is VALUE now.
query_is() { [ "$(query "$2")" = "$1" ]; }
export -f query_is

out="$WORK/out"
SHOW_ON_FAILURE=$out
"$SLIPWAY" run "$(topology observed)" >"$out" 2>&1 &
launcher=$!
BACKGROUND_PIDS+=("$launcher")
wait_until 30 grep -q "^slipway: page and metrics of the program: http://127.0.0.1:[0-9]*/$" "$out"
wait_until 30 pgrep -f "$MARKER-learner"
# Prometheus found the program and scrapes it.
wait_until 60 query_is 1 'up{job="slipway",program="observed"}'
SHOW_ON_FAILURE="$WORK/prometheus.log"
[ "$(query 'slipway_task_restarts_total{node="learner",replica="0"}')" = 0 ] || fail "a restart counted before any kill"
pkill -9 -f "$MARKER-learner"
wait_until 30 query_is 1 'slipway_task_restarts_total{program="observed",node="learner",replica="0"}'
wait_until 10 query_is 1 'slipway_task_up{node="learner",replica="0"}'
SHOW_ON_FAILURE=$out
"$SLIPWAY" stop observed
wait_for_exit "$launcher"
expect_status 0
echo PASS
