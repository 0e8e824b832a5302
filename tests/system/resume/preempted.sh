#!/usr/bin/env bash
# Issue 28 (b): the test program (program/resume.toml) under `slipway sbatch
# --requeue` in partition low, preempted by a job of partition high that
# needs every host (PreemptMode=REQUEUE, GraceTime=30): the tasks save and
# the program stops within the GraceTime, the job is requeued once and
# resumes when the high job has ended, in the same run directory, with every
# item acknowledged before the notice and the learner at or past its last
# saved step. With `user-signal`, on a cluster with
# preempt_send_user_signal, where the preemption's signal is the job's
# --signal (SIGUSR1 to the batch shell) instead of SIGTERM to the steps.
#   SLIPWAY=... preempted.sh [user-signal]
set -euo pipefail
source "$(dirname "$0")/lib.sh"
: "${SLIPWAY:?SLIPWAY must point at the slipway binary}"
trap 'scancel --user=root 2>/dev/null || true' EXIT
[[ ${1:-} != user-signal ]] || preempt_send_user_signal

job=$(submit_program pre 1)
trap 'show_run pre "$job"; scancel --user=root 2>/dev/null || true' EXIT
wait_until 180 progressed pre "$job"
high=$(preempt 10 3)
wait_state 120 "$high" RUNNING
wait_state 120 "$high" COMPLETED
wait_state 240 "$job" COMPLETED
one_run pre 1
check_resumed pre "$job"
assert_eq 1 "$(field "$job" Restarts)" "requeues of job $job"
expect_line "$PWD/pre-$job.out" "slipway: job $job is being preempted \(since [^)]*\): requeueing it now"
if [[ ${1:-} == user-signal ]]; then
  expect_line "$PWD/pre-$job.out" '^slipway: SIGUSR1 \(the time limit is near, or a preemption\)'
fi
trap - EXIT
