#!/usr/bin/env bash
# `slipway sbatch --array=0-2 --requeue` on the real cluster, with a stand-in
# for `slipway launch` (SLIPWAY_BIN): three array tasks each run the program
# with their own SLURM_ARRAY_TASK_ID; SIGUSR1 to task 1's batch shell (what
# --signal sends before its time limit) stops its program and requeues task
# 1 alone, by ARRAY_JOB_ID_1, and only it runs again (restart 1).
#   array_requeue.sh SLIPWAY
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh"
source "$here/../../cluster/slurm_jobs.sh"
slipway=$1

printf '[program]\nname = "arr"\n[node.a]\ncommand = "true"\n' >one.toml
export FAKE_SLIPWAY_LOG=$PWD/launch.log
out=$(SLIPWAY_BIN="$here/fake-slipway.sh" "$slipway" sbatch one.toml --array=0-2 --requeue \
  --sbatch-arg=--output="$PWD/job-%A_%a.out")
job=$(job_id_of "$out")
trap 'scancel "$job" 2>/dev/null || true' EXIT

count() { grep -c -- "$1" "$FAKE_SLIPWAY_LOG" 2>/dev/null || true; }
at_least() { [[ $(count "$1") -ge $2 ]]; }

wait_for 60 "three array tasks" at_least '^start 0 [012] ' 3
scancel --batch --signal=USR1 "${job}_1"
wait_for 30 "task 1 to stop" at_least '^stopped USR1 1$' 1
start_now "${job}_1"
wait_for 60 "task 1 to run again" at_least '^start 1 1 ' 1

assert_eq 1 "$(count '^start 0 0 ')" "runs of task 0"
assert_eq 1 "$(count '^start 0 2 ')" "runs of task 2"
assert_eq 0 "$(count '^start 1 [02] ')" "restarts of tasks 0 and 2"
assert_eq 1 "$(count '^stopped')" "stops"
assert_contains "$(cat "job-${job}_1.out")" "slipway: requeueing job ${job}_1 (restart 1 of 10)" "task 1's output"
