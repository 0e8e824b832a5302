# shellcheck shell=bash
# Helpers of the CLI scenarios, over the `slipway run` scenarios' own (a
# private run root and work directory, a marker in every task's command
# line, cleanup of what a scenario started, run_slipway, expect_status).
source "$(dirname "${BASH_SOURCE[0]}")/../launchers/lib.sh"

# program FILE NAME NODE COMMAND [LINE...]: writes a one-node topology whose
# node runs `sh -c COMMAND` (with the marker), plus LINEs in the node table.
program() {
  local file=$1 name=$2 node=$3 command=$4
  shift 4
  {
    printf '[program]\nname = "%s"\n\n[node.%s]\n' "$name" "$node"
    printf 'command = ["sh", "-c", "%s", "%s"]\n' "$command" "$MARKER"
    local line
    for line in "$@"; do printf '%s\n' "$line"; done
  } >"$file"
}

# started PROGRAM PID OUT: waits until the run of PROGRAM (launcher PID,
# output in OUT) has written its rendezvous contact; fails at once, showing
# OUT, if the launcher ended first.
started() {
  local program=$1 pid=$2 out=$3
  wait_until 60 eval "test -e '$SLIPWAY_RUN_ROOT/$program.latest/rendezvous' || ! kill -0 $pid 2>/dev/null"
  if ! kill -0 "$pid" 2>/dev/null && [ ! -e "$SLIPWAY_RUN_ROOT/$program.latest/rendezvous" ]; then
    cat "$out" >&2
    fail "slipway run of $program ended before it started"
  fi
}
