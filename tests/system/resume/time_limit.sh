#!/usr/bin/env bash
# Issue 28 (c): the test program (program/resume.toml) under `slipway sbatch
# --requeue --grace=60` with a 3-minute time limit: the warning (SIGUSR1 to
# the batch shell, 60 s and up to 60 s more before the end) gives the
# program its checkpoint notice, the batch script requeues the job once it
# stopped, and the job resumes the same run directory with every item
# acknowledged before the notice and the learner at or past its last saved
# step.
#   SLIPWAY=... time_limit.sh
set -euo pipefail
source "$(dirname "$0")/lib.sh"
: "${SLIPWAY:?SLIPWAY must point at the slipway binary}"
trap 'scancel --user=root 2>/dev/null || true' EXIT

job=$(submit_program tl 1 --grace=60 --sbatch-arg=--time=3)
trap 'show_run tl "$job"; scancel --user=root 2>/dev/null || true' EXIT
wait_until 180 progressed tl "$job"
start_now "$job" 200   # the warning comes 60 to 120 s after the start
wait_state 120 "$job" COMPLETED
one_run tl 1
check_resumed tl "$job"
assert_eq 1 "$(field "$job" Restarts)" "requeues of job $job"
expect_line "$PWD/tl-$job.out" "slipway: requeueing job $job \(restart 1 of 10\)"
trap - EXIT
