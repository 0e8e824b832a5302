#!/usr/bin/env bash
# A lost host replaced through a satellite job ([program.elastic]
# satellites = 1), in a job of two of the cluster's three hosts with no
# room for one more replica: the third host comes from the queue.
# MODE fixed: a node of 2 replicas (replicas = 2) loses worker.0's host
#   (every process in its namespace killed); worker.0 comes back, on its
#   next attempt, in a satellite job on the third host, the program
#   finishes 0 and the satellite job leaves the queue.
# MODE expired: as fixed, but a job of the test holds the third host and
#   satellite_wait is 5 s: the satellite job still pends after it, is
#   cancelled, and the loss ends as one without room: worker.0 fails, the
#   program fails, saying what to do.
# MODE world: a torch world of 2 (replicas = 2) loses rank 1's host; its
#   epoch 1 starts, rank 1 in a satellite job on the third host, only once
#   that job runs (rank 0 waits with it), and trains.
# MODE elastic: a torch node of "1:2" loses rank 1's host: it shrinks to 1
#   at once, then grows back to 2 as a satellite job runs on the third
#   host (a new epoch), and trains at 2 again.
#   host_replaced_satellite.sh fixed|expired|world|elastic
source "$(dirname "$0")/lib.sh"
mode=$1
case $mode in
  fixed|expired) program=replaced node=worker
    file=$(topology host_replaced)
    [ "$mode" = fixed ] || sed -i 's/satellite_wait = 120/satellite_wait = 5/' "$file"
    srun -N2 -p cpu --program="$file" >out 2>&1 & ;;
  world) program=replaced-world node=trainer
    /usr/bin/python3 -c "import torch.distributed" || fail "python3-torch is not installed"
    srun -N2 -p cpu --program="$(topology host_replaced_world)" >out 2>&1 & ;;
  elastic) program=replaced-elastic node=trainer
    /usr/bin/python3 -c "import torch.distributed" || fail "python3-torch is not installed"
    srun -N2 -p cpu --program="$(topology host_replaced_elastic)" >out 2>&1 & ;;
  *) fail "mode is fixed, expired, world or elastic, not '$mode'" ;;
esac
launcher=$!
lost=
trap 'kill_launcher "$launcher"; scancel --name="$program" 2>/dev/null || true
      scancel --name="$program-blocker" 2>/dev/null || true
      scancel --name="$program:satellite:$node" 2>/dev/null || true
      pkill -9 -f "$MARKER" || true
      [ -z "$lost" ] || restart_host "$lost"' EXIT
# The lines can still be on their way through srun's I/O forwarding when
# the commands already run.
if [ "$mode" = fixed ] || [ "$mode" = expired ]; then
  started() { [ "$(grep -sc '^worker\.[01]: attempt 0 on fn[1-3]$' out)" = 2 ]; }
  at() { sed -n "s/^worker\.$1: attempt 0 on \(fn[1-3]\)$/\1/p" out; }
  victim=worker.0 other=worker.1
else
  started() { [ "$(grep -sc '^trainer\.[01]: rank [01] world 2 epoch 0 on fn[1-3] formed$' out)" = 2 ]; }
  at() { sed -n "s/^trainer\.$1: rank $1 world 2 epoch 0 on \(fn[1-3]\) formed$/\1/p" out; }
  victim=trainer.1 other=trainer.0
fi
if ! (wait_until 120 started); then
  cat out
  fail "the $node replicas did not start"
fi
lost=$(at "${victim#*.}")
busy=$(at "${other#*.}")
third=$(printf '%s\n' fn1 fn2 fn3 | grep -vx -e "$lost" -e "$busy")
[ "$(echo "$third" | wc -l)" -eq 1 ] || fail "$victim on '$lost', $other on '$busy': no single third host"
if [ "$mode" = expired ]; then
  sbatch -p cpu -w "$third" -N1 -c4 --job-name="$program-blocker" -o /dev/null --wrap 'sleep 600' >/dev/null
  holds() { [ "$(squeue -h -n "$program-blocker" -o %T)" = RUNNING ]; }
  wait_until 60 holds || fail "the blocker job does not run on $third"
fi
kill_host "$lost"
if [ "$mode" = fixed ]; then
  back() { grep -q "^worker\.0: attempt 1 on $third$" out || grep -q "program 'replaced' failed" out; }
  if ! (wait_until 120 back) || ! grep -q "^worker\.0: attempt 1 on $third$" out; then
    cat out
    squeue -a || true
    fail "worker.0 did not come back on the third host $third"
  fi
  # Its satellite job goes once it has finished there, while worker.1 runs.
  if ! (wait_until 60 grep -q "released: worker\.0 no longer needs it" out); then
    cat out
    fail "worker.0's satellite job was not released"
  fi
  touch release
fi
wait_for_launcher "$launcher" out
if [ "$mode" = expired ]; then
  [ "$status" -ne 0 ] || fail "srun --program exited 0 without worker.0's host"
else
  [ "$status" -eq 0 ] || fail "srun --program exited $status"
fi
expect_line out "${victim//./\\.} lost on $lost"
job=$(sed -n "s/.*$node: asked Slurm for satellite job \([0-9]*\) .*/\1/p" out | head -n1)
[ -n "$job" ] || fail "no satellite job was submitted"
case $mode in
  fixed)
    expect_line out "worker: asked Slurm for satellite job $job \(1 host, 3 cpus\) for worker\.0, whose host is lost"
    expect_line out "worker\.0: no host of job [0-9]+ has room for worker\.0 \(3 cpus, 0 gpus\); lost hosts: $lost; waiting up to 120 s for satellite job $job"
    expect_line out "satellite job $job runs on $third: a place for worker\.0, whose host is lost"
    expect_line out "worker\.0: new step on $third"
    expect_line out "satellite job $job on $third released: worker\.0 no longer needs it"
    # One attempt while its host was lost, none beside another.
    [ "$(grep -c '^worker\.0: attempt ' out)" -eq 2 ] || fail "worker.0 ran other than twice"
    expect_line out "program 'replaced' finished" ;;
  expired)
    expect_line out "slipway: worker\.0: satellite job $job still pends after 5 s \(\[program\.elastic\] satellite_wait\); cancelled: no host for replica 0 of node worker, whose host is lost; free a host of partition cpu, raise \[program\.elastic\] satellite_wait, or give the job a spare host \(e\.g\. srun -N3\)"
    expect_line out "program 'replaced' failed: task worker\.0 exited with status 127 on attempt 1; retries exhausted \(max_retries = 1\)"
    expect_no_line out "^worker\.0: attempt 1 " ;;
  world)
    expect_line out "trainer: asked Slurm for satellite job $job \(1 host, 3 cpus\) for trainer\.1, whose host is lost"
    expect_line out "trainer\.0: waits for a host for trainer\.1 \(its world starts as a whole\)"
    expect_line out "trainer\.1: no host of job [0-9]+ has room for trainer\.1 .*; waiting up to 120 s for satellite job $job"
    # No rank of epoch 1 starts before the satellite job runs.
    granted=$(grep -n "satellite job $job runs on $third: a place for trainer\.1, whose host is lost" out | cut -d: -f1)
    [ -n "$granted" ] || fail "satellite job $job did not run on $third"
    first_step=$(grep -n "^slipway: trainer\.[01]: new step on " out | head -n1 | cut -d: -f1)
    if [ -z "$first_step" ] || [ "$first_step" -le "$granted" ]; then
      fail "a rank of epoch 1 started before its world had a host"
    fi
    expect_line out "^trainer\.1: rank 1 world 2 epoch 1 on $third formed$"
    for r in 0 1; do expect_line out "^trainer\.$r: rank $r world 2 epoch 1 trained$"; done
    expect_line out "program 'replaced-world' finished" ;;
  elastic)
    expect_line out "trainer shrinks from 2 to 1 replicas \(no host has room for trainer\.1\): its world restarts as epoch 1 with 1 replica\(s\)"
    # The grant may come before the world of 1 has started (epoch 1) or after.
    expect_line out "satellite job $job runs on $third: a place for trainer\.1"
    expect_line out "trainer grows from 1 to 2 replicas \(satellite job $job granted on $third\): its world restarts as epoch [12] with 2 replica\(s\)"
    expect_line out "^trainer\.1: rank 1 world 2 epoch [12] on $third formed$"
    for r in 0 1; do expect_line out "^trainer\.$r: rank $r world 2 epoch [12] trained$"; done
    expect_no_line out "program 'replaced-elastic' failed"
    expect_line out "program 'replaced-elastic' finished" ;;
esac
gone() { [ -z "$(squeue -h -j "$job" -o %T 2>/dev/null)" ]; }
wait_until 30 gone || fail "satellite job $job is still in the queue: $(squeue -h -j "$job")"
echo PASS
