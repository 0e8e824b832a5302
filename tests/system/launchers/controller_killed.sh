#!/usr/bin/env bash
# SIGKILL of the controller (the slipway that `srun --program` runs inside
# its salloc) leaves nothing behind: the allocation is relinquished (squeue
# is empty), and every task's agent, cut off from the rendezvous, kills its
# task; no process of the program survives on any host; and srun --program
# says so and exits 1 (salloc alone exits 0 when its command is killed).
source "$(dirname "$0")/lib.sh"
srun -N3 -p cpu --program="$(topology controller_killed)" >out 2>&1 &
launcher=$!
trap 'kill_launcher "$launcher"; scancel --name=controller-killed 2>/dev/null || true
      pkill -9 -f "$MARKER" || true' EXIT
tasks() { pgrep -c -f "$MARKER" || true; }
started() { [ "$(tasks)" -ge 4 ]; }
gone() { [ "$(tasks)" -eq 0 ]; }
if ! (wait_until 60 started); then
  cat out
  fail "the program's four tasks did not start"
fi
# The controller: the slipway whose parent is salloc, among this srun's
# descendants (other tests' programs, run beside this one, have their own).
descendants() { local p; for p in $(pgrep -P "$1"); do echo "$p"; descendants "$p"; done; }
controller=$(for p in "$launcher" $(descendants "$launcher"); do
  [ "$(ps -o comm= -p "$p")" = slipway ] || continue
  if [ "$(ps -o comm= -p "$(ps -o ppid= -p "$p" | tr -d ' ')")" = salloc ]; then echo "$p"; fi; done)
[ "$(echo "$controller" | wc -w)" -eq 1 ] || fail "expected one controller under salloc: '$controller'"
kill -9 "$controller"
job_gone() { [ -z "$(squeue -h -n controller-killed -o %i)" ]; }
wait_until 30 job_gone || fail "the job is still in squeue: $(squeue -n controller-killed)"
wait_until 30 gone ||
  fail "tasks survived their controller: $(pgrep -af "$MARKER")"
wait_for_launcher "$launcher" out
[ "$status" -eq 1 ] || fail "srun --program exited $status although its controller was killed (salloc alone says 0)"
expect_line out "the program's controller \(slipway launch, run by salloc\) ended without saying how the program ended"
echo PASS
