# shellcheck shell=bash
# Shared helpers of the `slipway run` integration scenarios: a private run
# root, bounded waits, assertions that say what went wrong, and cleanup of
# anything a scenario started.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../../lib/checks.sh"
: "${SLIPWAY:?SLIPWAY must point at the slipway binary}"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/slipway-it.XXXXXX")
export SLIPWAY_RUN_ROOT="$WORK/runs"
export MARKER="slipway-it-$$-$RANDOM"
BACKGROUND_PIDS=()

# SHOW_ON_FAILURE: a file (a launcher's output) printed when the scenario
# fails, so that a timed-out wait shows what the program did meanwhile.
SHOW_ON_FAILURE=""

cleanup() {
  local code=$? pid
  if [ "$code" -ne 0 ] && [ -n "$SHOW_ON_FAILURE" ] && [ -f "$SHOW_ON_FAILURE" ]; then
    printf -- '--- %s (exit %d) ---\n' "$SHOW_ON_FAILURE" "$code" >&2
    cat "$SHOW_ON_FAILURE" >&2
    printf -- '--- run directories ---\n' >&2
    ls -R "$SLIPWAY_RUN_ROOT" >&2 2>/dev/null || true
  fi
  for pid in "${BACKGROUND_PIDS[@]:-}"; do
    [ -n "$pid" ] && kill -9 "$pid" 2>/dev/null || true
  done
  pkill -9 -f "$MARKER" 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT

# run_slipway OUTFILE ARGS...: runs slipway under a timeout; sets $status.
run_slipway() {
  local out=$1
  shift
  run_logged "$out" timeout 120 "$SLIPWAY" "$@"
}

# wait_for_exit PID: waits up to 60 s for a launcher started in the
# background; sets $status.
wait_for_exit() { wait_for_child 60 "$1"; }

expect_status() {
  [ "$status" -eq "$1" ] || fail "expected exit status $1, got $status"
}

no_survivors() {
  ! pgrep -f "$MARKER" >/dev/null
}

# descendants PID COMM: the live descendants of PID whose command name is
# COMM (to find a run's launcher or agents by pid, never by name alone).
descendants() {
  ps -e -o pid=,ppid=,comm= | awk -v root="$1" -v comm="$2" '
    { parent[$1] = $2; name[$1] = $3 }
    END {
      for (p in parent) {
        if (name[p] != comm) continue
        for (q = parent[p]; q > 1; q = parent[q]) if (q == root) { print p; break }
      }
    }'
}

# topology NAME: copies topologies/NAME.toml into the work dir with
# @MARKER@ and @WORK@ replaced, and prints its path.
topology() {
  sed -e "s|@MARKER@|$MARKER|g" -e "s|@WORK@|$WORK|g" -e "s|@TOPOLOGIES@|$TOPOLOGIES|g" \
    "$TOPOLOGIES/$1.toml" >"$WORK/$1.toml"
  echo "$WORK/$1.toml"
}
