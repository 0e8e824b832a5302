#!/usr/bin/env bash
# `srun -N3 --program` keeps the three hosts the user asked for, although
# the program has two tasks (of 3 CPUs, on 4-CPU hosts): when the host of
# worker.0 dies, its replica comes back on the spare host and the program
# completes. (Slurm gives a job at least one task per host: with --ntasks=2
# it would drop the third host.)
source "$(dirname "$0")/lib.sh"
srun -N3 -p cpu --program="$(topology spare_host)" >out 2>&1 &
launcher=$!
lost=
trap 'kill_launcher "$launcher"; scancel --name=spare 2>/dev/null || true
      [ -z "$lost" ] || restart_host "$lost"' EXIT
# The lines can still be on their way through srun's I/O forwarding when
# the commands already run.
if ! (wait_until 60 bash -c "[ \$(grep -sc '^worker\.[01]: attempt 0 on fn[1-3]$' out) -eq 2 ]"); then
  cat out
  fail "the workers did not start"
fi
expect_no_line out "setting nnodes"
lost=$(sed -n 's/^worker\.0: attempt 0 on \(fn[1-3]\)$/\1/p' out)
busy=$(sed -n 's/^worker\.1: attempt 0 on \(fn[1-3]\)$/\1/p' out)
spare=$(printf '%s\n' fn1 fn2 fn3 | grep -vx -e "$lost" -e "$busy")
[ "$(echo "$spare" | wc -l)" -eq 1 ] || fail "workers on '$lost' and '$busy': no single spare host"
kill_host "$lost"
if ! (wait_until 90 grep -q "^worker\.0: attempt 1 on $spare$" out); then
  cat out
  fail "worker.0 did not come back on the spare host $spare"
fi
touch release
wait_for_launcher "$launcher" out
[ "$status" -eq 0 ] || fail "srun --program exited $status"
expect_line out "worker\.0 lost on $lost"
expect_line out "worker\.0: new step on $spare"
expect_line out "program 'spare' finished"
echo PASS
