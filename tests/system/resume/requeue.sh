#!/usr/bin/env bash
# Issue 28 (a): the test program (program/resume.toml: a replay node, an
# actor, a learner saving to SLIPWAY_STATE_DIR) under `slipway sbatch
# --requeue`, requeued by `scontrol requeue` mid-run: Slurm's SIGTERM reaches
# slipway and every task; the requeued job resumes the same run directory
# (one run, resume 1, SLIPWAY_RESUME 0 then 1), every item acknowledged
# before the notice is in the replay after the resume, the learner goes on
# at or past its last saved step, and the job is requeued once.
#   SLIPWAY=... requeue.sh
set -euo pipefail
source "$(dirname "$0")/lib.sh"
: "${SLIPWAY:?SLIPWAY must point at the slipway binary}"
trap 'scancel --user=root 2>/dev/null || true' EXIT

job=$(submit_program rq 1)
trap 'show_run rq "$job"; scancel --user=root 2>/dev/null || true' EXIT
wait_until 180 progressed rq "$job"
scontrol requeue "$job"
start_now "$job"
wait_state 240 "$job" COMPLETED
one_run rq 1
check_resumed rq "$job"
assert_eq 1 "$(field "$job" Restarts)" "requeues of job $job"
trap - EXIT
