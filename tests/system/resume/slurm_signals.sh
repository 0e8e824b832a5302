#!/usr/bin/env bash
# What Slurm 22.05 sends a running batch job, which the batch script of
# `slipway sbatch` (jobscripts/program-body.sh) relies on, shown with plain
# jobs on the preemption test cluster (docs/slurm.md, "Requeue and
# preemption"):
#  1. `scontrol requeue`: SIGTERM to the batch shell (the job already
#     COMPLETING when it asks), to another process of the batch step and to a
#     step's task; the job then pends until its BeginTime, and StartTime=now
#     starts it with SLURM_RESTART_COUNT=1;
#  2. preemption (GraceTime=30, no preempt_send_user_signal): SIGTERM to the
#     steps' tasks at once, nothing to the batch shell (no SIGUSR1 either)
#     until GraceTime ends, then SIGTERM to it (job COMPLETING); the job is
#     requeued once and runs again when the preempting job has ended;
#  3. a preempted job whose batch script ends within GraceTime is complete:
#     Slurm does not requeue it.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh"
trap 'scancel --user=root 2>/dev/null || true' EXIT

# The job: logs each signal of the batch shell (with the job's state as
# scontrol tells it then), of a background process of the batch step and
# of a step's task to $PWD/JOB.log. The task exits on SIGTERM; the batch
# shell too, or, with ENDS=after-step, 2 s after its step has ended.
cat >job.sh <<'JOB'
#!/bin/bash
log=$SCRATCH/$SLURM_JOB_ID.log
echo "start restart=${SLURM_RESTART_COUNT:-0}" >>"$log"
state() { scontrol show job -o "$SLURM_JOB_ID" | tr ' ' '\n' | grep '^JobState='; }
trap 'echo "batch USR1 $(state)" >>"$log"' USR1
trap 'echo "batch TERM $(state)" >>"$log"; exit 0' TERM
bash -c 'trap "echo child TERM >>$0; exit 0" TERM; while :; do sleep 0.2; done' "$log" &
srun --ntasks=1 --nodes=1 bash -c 'trap "echo task TERM >>$0; exit 0" TERM; echo task up >>$0; while :; do sleep 0.2; done' "$log" &
step=$!
if [ "${ENDS:-}" = after-step ]; then
  wait "$step"
  sleep 2
  echo "batch ends" >>"$log"
  exit 0
fi
while :; do sleep 0.2 & wait $!; done
JOB
export SCRATCH=$PWD

# 1. scontrol requeue of a running job.
job=$(sbatch --parsable --partition=low --requeue --ntasks=1 --output=/dev/null job.sh)
wait_until 60 has_lines 1 "$job.log" '^task up'
scontrol requeue "$job"
wait_until 20 has_lines 3 "$job.log" '^(batch|child|task) TERM'
expect_line "$job.log" '^batch TERM JobState=COMPLETING$'
expect_line "$job.log" '^child TERM$'
expect_line "$job.log" '^task TERM$'
wait_state 60 "$job" PENDING
assert_eq BeginTime "$(field "$job" Reason)" "a requeued job's reason to pend"
start_now "$job"
wait_until 20 has_lines 1 "$job.log" '^start restart=1$'
scancel "$job"

# 2. Preemption by a job of partition high, with GraceTime=30.
job=$(sbatch --parsable --partition=low --requeue --nodes=3 --exclusive --signal=B:USR1@60 \
  --output=/dev/null job.sh)
wait_until 60 has_lines 1 "$job.log" '^task up'
high=$(preempt 3)
wait_until 30 has_lines 1 "$job.log" '^task TERM$'
[[ $(field "$job" PreemptTime) != None ]] || fail "no PreemptTime on job $job during its GraceTime"
sleep 3
expect_no_line "$job.log" '^batch'
wait_until 90 has_lines 1 "$job.log" '^batch TERM'
expect_line "$job.log" '^batch TERM JobState=COMPLETING$'
expect_no_line "$job.log" '^batch USR1'
wait_state 90 "$high" COMPLETED
wait_until 60 has_lines 1 "$job.log" '^start restart=1$'
assert_eq 1 "$(field "$job" Restarts)" "requeues of the preempted job"
scancel "$job"
wait_state 60 "$job" CANCELLED

# 3. The batch script ends within GraceTime: the job is complete, not requeued.
job=$(ENDS=after-step sbatch --parsable --partition=low --requeue --nodes=3 --exclusive \
  --output=/dev/null job.sh)
wait_until 60 has_lines 1 "$job.log" '^task up'
high=$(preempt 1)
wait_until 60 has_lines 1 "$job.log" '^batch ends$'
wait_state 30 "$job" COMPLETED
assert_eq 0 "$(field "$job" Restarts)" "requeues of the job that ended within its GraceTime"
wait_state 60 "$high" COMPLETED
