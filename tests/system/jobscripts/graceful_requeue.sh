#!/usr/bin/env bash
# The generated script's stop and requeue, on the real cluster, with a
# stand-in for `slipway launch` (SLIPWAY_BIN): SIGUSR1 to the batch shell (what
# --signal=B:USR1@GRACE sends before the time limit) reaches slipway as
# SIGUSR1 (its checkpoint notice) and, with --requeue --max-requeues=1, the
# job is requeued once; the second run, stopped the same way, ends the job.
#   graceful_requeue.sh SLIPWAY
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh"
slipway=$1

export FAKE_SLIPWAY_LOG=$PWD/launch.log
out=$(SLIPWAY_BIN="$here/fake-slipway.sh" "$slipway" sbatch "$here/two-parts.toml" \
  --requeue --max-requeues=1 --sbatch-arg=--output="$PWD/job-%j.out")
job=$(job_id_of "$out")
trap 'scancel "$job" 2>/dev/null || true' EXIT

started() { [[ $(grep -c '^start' "$FAKE_SLIPWAY_LOG" 2>/dev/null) -ge $1 ]]; }
stopped() { [[ $(grep -c '^stopped' "$FAKE_SLIPWAY_LOG" 2>/dev/null) -ge $1 ]]; }

wait_for 60 "the first run" started 1
scancel --batch --signal=USR1 "$job"
wait_for 30 "the first stop" stopped 1
wait_for 90 "the requeued run" started 2
scancel --batch --signal=USR1 "$job"
wait_for 30 "the second stop" stopped 2
wait_for 30 "the job to end" bash -c "[[ -z \$(squeue -h -j $job 2>/dev/null) ]]"

assert_eq "start 0 - launch $here/two-parts.toml
stopped USR1 -
start 1 - launch $here/two-parts.toml
stopped USR1 -" "$(cat "$FAKE_SLIPWAY_LOG")" "runs of the program"
log=$(cat "job-$job.out")
assert_contains "$log" "slipway: requeueing job $job (restart 1 of 1)" "first stop"
assert_contains "$log" "slipway: job $job was requeued 1 times already: not again" "second stop"
