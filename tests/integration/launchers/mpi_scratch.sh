#!/usr/bin/env bash
# The private directories of an MPI node's agents (the PMIx server's, Open
# MPI's session and shared-memory directories) do not outlive them: when
# one slipway-exec is SIGKILLed, its world restarts (a new epoch) and the
# next agents on the host remove what the killed one left, while the
# stopped one removes its own; when no agent starts after it (a world with
# no retry left: the program fails), `slipway run` removes what the killed
# one left as soon as it reaps it (issue 27 item 11); a live agent's
# directories (another program's, here) are left alone; every directory
# is gone once the programs ended.
source "$(dirname "$0")/lib.sh"
export TMPDIR="$WORK/tmp"
mkdir "$TMPDIR"
dirs_of() { grep -h "^$2: dirs " "$1" | tail -1 | cut -d' ' -f3-; }
printed() { [ "$(grep -c "^$2: dirs " "$1")" -ge "$3" ]; }
gone() { local d; for d in "$@"; do [ ! -e "$d" ] || return 1; done; }

"$SLIPWAY" run "$(topology mpi_bystander)" >"$WORK/bystander" 2>&1 &
bystander=$!
BACKGROUND_PIDS+=("$bystander")
wait_until 60 printed "$WORK/bystander" watcher.0 1
read -r -a live <<<"$(dirs_of "$WORK/bystander" watcher.0)"

"$SLIPWAY" run "$(topology mpi_scratch)" >"$WORK/out" 2>&1 &
guard=$!
BACKGROUND_PIDS+=("$guard")
wait_until 60 printed "$WORK/out" 'solver\.[01]' 2
read -r -a killed <<<"$(dirs_of "$WORK/out" solver.0)"
read -r -a stopped <<<"$(dirs_of "$WORK/out" solver.1)"
[ "${#killed[@]}" -eq 3 ] && [ "${#stopped[@]}" -eq 3 ] && [ "${#live[@]}" -eq 3 ] ||
  fail "expected three directories per rank: ${killed[*]} / ${stopped[*]} / ${live[*]}"
for d in "${killed[@]}" "${stopped[@]}" "${live[@]}"; do [ -d "$d" ] || fail "$d does not exist"; done
# agent_of GUARD: the slipway-exec of solver.0 under the run of GUARD.
agent_of() {
  local agent
  agent=$(for p in $(descendants "$1" slipway-exec); do
    if grep -qaE -- "--task.solver\.0(.|$)" "/proc/$p/cmdline"; then echo "$p"; fi; done)
  [ "$(echo "$agent" | wc -w)" -eq 1 ] || fail "expected one slipway-exec of solver.0: $agent"
  echo "$agent"
}
agent=$(agent_of "$guard")
kill -9 "$agent"
wait_until 60 printed "$WORK/out" 'solver\.[01]' 4  # the world's next epoch runs
wait_until 30 gone "${killed[@]}" "${stopped[@]}"
for d in "${live[@]}"; do [ -d "$d" ] || fail "the live agent's $d was removed"; done
read -r -a retry <<<"$(dirs_of "$WORK/out" solver.0)"
echo "solver.0 in epoch 1: ${retry[*]}"

# No retry: no agent starts after the killed one; the launcher sweeps.
"$SLIPWAY" run "$(topology mpi_scratch_once)" >"$WORK/once" 2>&1 &
once=$!
BACKGROUND_PIDS+=("$once")
wait_until 60 printed "$WORK/once" 'solver\.[01]' 2
read -r -a once_killed <<<"$(dirs_of "$WORK/once" solver.0)"
for d in "${once_killed[@]}"; do [ -d "$d" ] || fail "$d does not exist"; done
agent=$(agent_of "$once")
kill -9 "$agent"
wait_for_exit "$once"
cat "$WORK/once"
expect_status 1
gone "${once_killed[@]}" || fail "a killed agent's directories outlived its program: $(ls -d "${once_killed[@]}" 2>/dev/null)"
for d in "${live[@]}"; do [ -d "$d" ] || fail "the live agent's $d was removed"; done
run_slipway "$WORK/stop" stop mpi_scratch
run_slipway "$WORK/stop2" stop mpi_bystander
set +e
wait "$guard"
status=$?
wait "$bystander"
set -e
cat "$WORK/out"
expect_status 0
gone "${live[@]}" "${retry[@]}" || fail "directories left after the programs ended: $(ls -d "${live[@]}" "${retry[@]}" 2>/dev/null)"
echo PASS
