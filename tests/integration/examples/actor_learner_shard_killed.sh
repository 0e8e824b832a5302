#!/usr/bin/env bash
# Runs examples/actor_learner.toml under `slipway run` and SIGKILLs replay
# shard 1 (its slipway-replay process, found by pid under this run) once it
# has written a checkpoint holding items. slipway relaunches it (attempt 1,
# within max_retries); it says what it loaded from its checkpoint, the
# clients follow it to its new address, and the program still completes.
# Needs SLIPWAY (which puts slipway's Python package and courier library
# in every task's environment, as for users).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../channels/example_lib.sh"

out="$runs/output"
timeout 240 "$SLIPWAY" run "$root/examples/actor_learner.toml" --run-root "$runs" >"$out" 2>&1 &
guard=$!
trap 'kill "$guard" 2>/dev/null || true; rm -rf "$runs"' EXIT  # timeout passes SIGTERM on to slipway

# is_under PID ROOT: whether PID descends from ROOT (through /proc).
is_under() {
  local pid=$1
  while [ "$pid" -gt 1 ]; do
    pid=$(awk '{print $4}' "/proc/$pid/stat" 2>/dev/null) || return 1
    [ "$pid" = "$2" ] && return 0
  done
  return 1
}

# shard_pid N: the slipway-replay process of replay.N in this run.
shard_pid() {
  local pid
  for pid in $(pgrep -x slipway-replay); do
    if is_under "$pid" "$guard" && tr '\0' '\n' <"/proc/$pid/environ" 2>/dev/null | grep -qx "SLIPWAY_REPLICA=$1"; then
      echo "$pid"
      return 0
    fi
  done
  return 1
}

checkpointed() { grep -Eq '^replay\.1: slipway-replay: checkpoint .*: [1-9][0-9]* items' "$out"; }
wait_until 120 checkpointed
pid=$(shard_pid 1) || fail "no slipway-replay process of replay.1 under slipway run ($guard)"
kill -9 "$pid"
echo "killed replay.1 (pid $pid) after its first checkpoint"

wait_for_child 240 "$guard"
output=$(cat "$out")
printf '%s\n' "$output"
[ "$status" -eq 0 ] || fail "slipway run exited with status $status"
expect "slipway: restarting replay\.1 \(attempt 1\)" "replay.1 was not relaunched"
expect "^replay\.1: slipway-replay: loaded checkpoint .*: [0-9]+ tables, [1-9][0-9]* items" \
  "the relaunched replay.1 did not load its checkpoint"
expect "^replay\.1: slipway-replay: serving replay\.1 \(attempt 1\)" "the relaunched replay.1 did not serve"
expect "^learner\.0: learned weight [12]\.[0-9]+ in 150 steps" "the learner did not finish"
expect "program 'actor-learner' finished: all tasks finished" "no clean finish"
echo "$script: ok"
