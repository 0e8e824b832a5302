#!/usr/bin/env bash
# A job step whose tasks never start is a failure of those tasks, never a
# success: with slipway.so required by plugstack.conf but missing on the
# compute hosts, Slurm fails every step ("task 0 launch failed: Plugin
# initialization failed") and srun exits 0. Each replica is retried within
# max_retries, then the program fails, passing Slurm's message on.
#   step_never_started.sh srun|launch|sbatch
# srun: `srun -N2 --program` on this machine (the plugin is here only);
# launch: `slipway launch` (it runs salloc itself);
# sbatch: `sbatch -N2 --program`: the batch host fn1 has the plugin (the
# batch script and the controller run there, and so does worker.0), fn2 has
# not (worker.1's steps fail).
source "$(dirname "$0")/lib.sh"
mode=$1
trap plugin_restore EXIT
topo=$(topology never_started)
case $mode in
  srun)
    plugin_only_on
    run_logged out srun -N2 -p cpu --program="$topo" ;;
  launch)
    plugin_only_on
    run_logged out "$SLIPWAY" launch --srun-arg=-N2 --srun-arg=-pcpu "$topo" ;;
  sbatch)
    plugin_only_on fn1
    run_logged sbatch.out sbatch --wait -w 'fn[1-2]' -p cpu --output="$PWD/out" --program="$topo"
    sed 's/^/    /' out ;;
  *) fail "usage: step_never_started.sh srun|launch|sbatch" ;;
esac
[ "$status" -ne 0 ] || fail "a program whose steps never started exited 0"
reason="never started: its job step ended before the task joined the program \(srun exited with status 0: srun: error: task 0 launch failed: Plugin initialization failed\)"
expect_line out "worker\.1 $reason"
expect_line out "restarting worker\.1 \(attempt 1\)"
expect_line out "program 'unlaunched' failed: task worker\.[01] $reason on attempt 1; retries exhausted \(max_retries = 1\)"
expect_no_line out "program 'unlaunched' finished"
expect_no_line out "^worker\.1: ran"
if [ "$mode" = sbatch ]; then
  expect_line out "^worker\.0: ran attempt 0 on fn1$"
else
  expect_line out "worker\.0 $reason"
  expect_no_line out "^worker\.0: ran"
fi
echo PASS
