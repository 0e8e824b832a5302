#!/usr/bin/env bash
# A host killed mid-run (every process in its network namespace: slurmd,
# slurmstepd, the agent, the command) costs only its replica, which comes
# back on another host of the --no-kill allocation; the program completes.
# The allocation has room for it (6 CPUs for 3 tasks); the host's slurmd is
# started again afterwards.
source "$(dirname "$0")/lib.sh"
"$SLIPWAY" launch --srun-arg=-N3 --srun-arg=-n6 --srun-arg=-pcpu "$(topology lost_host)" >out 2>&1 &
launcher=$!
# On failure, the job goes too (salloc killed with -9 would leave it holding
# the hosts the next test needs).
trap 'kill_launcher "$launcher"; scancel --name=lost 2>/dev/null || true
      pkill -9 -f "$MARKER" || true; restart_host fn2' EXIT
wait_until 60 bash -c "[ \$(pgrep -c -f '$MARKER') -ge 3 ]"
# The line can still be on its way through srun's I/O forwarding when the
# command already runs.
if ! (wait_until 30 grep -q "^spread.1: attempt 0 on fn2$" out); then
  cat out
  fail "spread.1 did not start on fn2"
fi
# The host dies: every process in its namespace.
kill_host fn2
wait_until 60 grep -q "^spread.1: attempt 1 on fn[13]$" out
# The survivors' first attempts end too (killed), and are resubmitted.
pkill -9 -f "$MARKER" || true
wait_for_launcher "$launcher" out
[ "$status" -eq 0 ] || fail "slipway launch exited $status"
expect_line out "spread.1 lost on fn2"
expect_line out "spread.1: new step on fn[13]"
expect_line out "program 'lost' finished"
echo PASS
