#!/usr/bin/env bash
# The private directories of an MPI node's agent (the PMIx server's, Open
# MPI's session and shared-memory directories) do not outlive it: when one
# slipway-exec is SIGKILLed, the next agent on the host (its retry) removes
# what it left, and leaves the live agent's alone; every directory is gone
# once the program ended.
source "$(dirname "$0")/lib.sh"
program=$(topology mpi_scratch)
export TMPDIR="$WORK/tmp"
mkdir "$TMPDIR"
dirs_of() { grep -h "^solver\.$1: dirs " "$WORK/out" | tail -1 | cut -d' ' -f3-; }
printed() { [ "$(grep -c '^solver\.[01]: dirs ' "$WORK/out")" -ge "$1" ]; }
gone() { local d; for d in "$@"; do [ ! -e "$d" ] || return 1; done; }

"$SLIPWAY" run "$program" >"$WORK/out" 2>&1 &
guard=$!
BACKGROUND_PIDS+=("$guard")
wait_until 60 printed 2
read -r -a killed <<<"$(dirs_of 0)"
read -r -a live <<<"$(dirs_of 1)"
[ "${#killed[@]}" -eq 3 ] && [ "${#live[@]}" -eq 3 ] || fail "expected three directories per rank: ${killed[*]} / ${live[*]}"
for d in "${killed[@]}" "${live[@]}"; do [ -d "$d" ] || fail "$d does not exist"; done
agent=$(pgrep -f -- "--task solver\.0( |$)" | while read -r p; do
  [ "$(ps -o comm= -p "$p")" = slipway-exec ] && echo "$p"; done)
[ "$(echo "$agent" | wc -w)" -eq 1 ] || fail "expected one slipway-exec of solver.0: $agent"
kill -9 "$agent"
wait_until 60 printed 3  # solver.0's retry runs
wait_until 30 gone "${killed[@]}"
for d in "${live[@]}"; do [ -d "$d" ] || fail "the live agent's $d was removed"; done
read -r -a retry <<<"$(dirs_of 0)"
echo "solver.0's retry: ${retry[*]}"
run_slipway "$WORK/stop" stop mpi_scratch
set +e
wait "$guard"
status=$?
set -e
cat "$WORK/out"
expect_status 0
gone "${live[@]}" "${retry[@]}" || fail "directories left after the program ended: $(ls -d "${live[@]}" "${retry[@]}" 2>/dev/null)"
echo PASS
