#!/usr/bin/env bash
# Issue 28: `slipway sbatch --array=0-2 --requeue` of the test program
# (program/resume.toml): three runs, each its own run directory linked as
# PROGRAM.job-ARRAY_TASK and SLIPWAY_ARRAY_TASK=TASK in its tasks; each task
# requeued by its own id (scontrol requeue ARRAY_TASK) resumes its own run.
#   SLIPWAY=... array.sh
set -euo pipefail
source "$(dirname "$0")/lib.sh"
: "${SLIPWAY:?SLIPWAY must point at the slipway binary}"
trap 'scancel --user=root 2>/dev/null || true' EXIT

job=$(submit_program arr 1 --array=0-2)
trap 'for t in 0 1 2; do show_run arr "${job}_$t"; done; scancel --user=root 2>/dev/null || true' EXIT
for t in 0 1 2; do wait_until 240 progressed arr "${job}_$t"; done
for t in 0 1 2; do
  scontrol requeue "${job}_$t"
  start_now "${job}_$t"
done
for t in 0 1 2; do wait_state 240 "${job}_$t" COMPLETED; done
one_run arr 3
runs=$(for t in 0 1 2; do run_of arr "${job}_$t"; done | sort -u | wc -l)
assert_eq 3 "$runs" "distinct run directories of the three array tasks"
for t in 0 1 2; do
  check_resumed arr "${job}_$t"
  log=$(log_of arr "${job}_$t" learner.0)
  expect_line "$log" "^learner: start resume 0 array $t step 0$"
  expect_line "$log" "^learner: start resume 1 array $t step "
  assert_eq 1 "$(field "${job}_$t" Restarts)" "requeues of array task ${job}_$t"
done
trap - EXIT
