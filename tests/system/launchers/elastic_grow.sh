#!/usr/bin/env bash
# Growth past the plan, and its release: an elastic torch node (replicas =
# "1:2", 3 CPUs a rank) with [program.elastic] satellites = 1.
# MODE satellite: it runs in a job of one 3-CPU task (room for one rank).
#   `slipway scale trainer 2` makes the controller submit a satellite job;
#   once Slurm starts it on another host, the world restarts as epoch 1 with
#   a rank there. `slipway scale trainer 1` shrinks it back (epoch 2): the
#   satellite job is cancelled, and the program completes in its job.
# MODE room: its job has two 3-CPU tasks, one taken by a node that finishes
#   at once; the second rank grows into that room, with no satellite job.
#   elastic_grow.sh satellite|room
source "$(dirname "$0")/lib.sh"
mode=$1
/usr/bin/python3 -c "import torch.distributed" || fail "python3-torch is not installed"
case $mode in
  satellite) program=satellite-grow
    srun -N1 -n1 -c3 -p cpu --program="$(topology satellite_grow)" >out 2>&1 & ;;
  room) program=room-grow
    srun -N2 -n2 -c3 -p cpu --program="$(topology room_grow)" >out 2>&1 & ;;
  *) fail "mode is satellite or room, not '$mode'" ;;
esac
launcher=$!
trap 'kill_launcher "$launcher"; scancel --name="$program" 2>/dev/null || true
      scancel --name="$program:satellite:trainer" 2>/dev/null || true
      pkill -9 -f "$MARKER" || true' EXIT
formed() { [ "$(grep -sc "^trainer\.[01]: rank [01] world $1 epoch $2 on fn[0-9]* formed$" out)" = "$1" ]; }
if ! (wait_until 120 formed 1 0); then
  cat out
  fail "the world of 1 did not form"
fi
main_host=$(sed -n 's/^trainer\.0: rank 0 world 1 epoch 0 on \(fn[0-9]*\) formed$/\1/p' out)
"$SLIPWAY" scale trainer 2 --program "$program"
if ! (wait_until 120 formed 2 1); then
  cat out
  squeue -a || true
  fail "the world of 2 did not form"
fi
satellite_host=$(sed -n 's/^trainer\.1: rank 1 world 2 epoch 1 on \(fn[0-9]*\) formed$/\1/p' out)
[ "$satellite_host" != "$main_host" ] || fail "rank 1 runs on rank 0's host $main_host"
if [ "$mode" = satellite ]; then
  job=$(sed -n 's/.*trainer: asked Slurm for satellite job \([0-9]*\) .*/\1/p' out | head -n1)
  [ -n "$job" ] || fail "no satellite job was submitted"
  [ "$(squeue -h -j "$job" -o %T)" = RUNNING ] || fail "satellite job $job is not running"
  [ "$(squeue -h -j "$job" -o %N)" = "$satellite_host" ] || fail "satellite job $job is not on $satellite_host"
fi
"$SLIPWAY" status "$program" >status 2>&1 || { cat status; fail "slipway status failed"; }
expect_line status "^trainer +2 +1:2 +1 +0,1$"
"$SLIPWAY" scale trainer 1 --program "$program"
wait_for_launcher "$launcher" out
[ "$status" -eq 0 ] || fail "srun --program exited $status"
expect_line out "^trainer\.0: rank 0 world 1 epoch 2 trained$"
expect_no_line out "program '$program' failed"
if [ "$mode" = room ]; then
  expect_line out "trainer: room on $satellite_host of job [0-9]+ for trainer\.1 \(no satellite job needed\)"
  expect_line out "trainer grows from 1 to 2 replicas \(asked by slipway scale [^)]*\); room on $satellite_host of job [0-9]+\): its world restarts as epoch 1"
  expect_no_line out "asked Slurm for satellite job"
  echo PASS
  exit 0
fi
expect_line out "satellite job $job granted on $satellite_host"
expect_line out "trainer grows from 1 to 2 replicas \(asked by slipway scale [^)]*\); satellite job $job granted on $satellite_host\): its world restarts as epoch 1"
expect_line out "satellite job $job on $satellite_host released: trainer no longer runs trainer\.1"
gone() { [ -z "$(squeue -h -j "$job" -o %T 2>/dev/null)" ]; }
wait_until 30 gone || fail "satellite job $job is still in the queue: $(squeue -h -j "$job")"
echo PASS
