#!/usr/bin/env bash
# The batch script's signal handling and requeue decisions, without Slurm:
# `slipway sbatch --dry-run` renders the script, bash runs it with
# SLURM_JOB_ID (and array variables) set, a stand-in for `slipway launch`
# (tests/system/jobscripts/fake-slipway.sh) and a fake `scontrol` that
# answers `show job` from files and records `requeue`. The signals are the
# ones Slurm 22.05 sends (docs/slurm.md, "Requeue and preemption").
#   batch_signals.sh SLIPWAY
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/../../lib/checks.sh"
slipway=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"

mkdir bin
cat >bin/scontrol <<'FAKE'
#!/bin/bash
# Fake scontrol: `show job -o KEY` from $FAKE_JOB_DIR; `requeue KEY` recorded.
case $1 in
  show) echo "JobId=$4 JobState=$(cat "$FAKE_JOB_DIR/state") PreemptTime=$(cat "$FAKE_JOB_DIR/preempt")" ;;
  requeue) echo "requeue $2" >>"$FAKE_JOB_DIR/scontrol.log" ;;
  *) exit 1 ;;
esac
FAKE
chmod +x bin/scontrol
export PATH=$work/bin:$PATH
printf '[program]\nname = "sig"\n[node.a]\ncommand = "true"\n' >sig.toml

# script NAME [SBATCH OPTIONS...]: renders the batch script into NAME.
script() {
  local name=$1; shift
  SLIPWAY_BIN="$here/../../system/jobscripts/fake-slipway.sh" "$slipway" sbatch --dry-run sig.toml "$@" \
    >"$name" 2>/dev/null
}
script requeue.sh --requeue --max-requeues=2
script plain.sh

# start SCRIPT STATE PREEMPT [VAR=VALUE...]: runs SCRIPT as a batch job in a
# fresh directory $job_dir (the job's state for scontrol), in the background
# ($batch: its pid), and waits for the stand-in to start ($launcher).
start() {
  local file=$1 state=$2 preempt=$3; shift 3
  job_dir=$(mktemp -d "$work/job.XXXX")
  echo "$state" >"$job_dir/state"
  echo "$preempt" >"$job_dir/preempt"
  : >"$job_dir/scontrol.log"
  env FAKE_JOB_DIR="$job_dir" FAKE_SLIPWAY_LOG="$job_dir/launch.log" FAKE_SLIPWAY_PID="$job_dir/pid" \
    SLURM_JOB_ID=42 SLURM_RESTART_COUNT=0 "$@" bash "$file" 2>"$job_dir/err" &
  batch=$!
  wait_until 10 test -s "$job_dir/pid"
  launcher=$(<"$job_dir/pid")
}

# finish EXPECTED_STATUS WHAT: the script ends with that status.
finish() {
  wait_for_child 20 "$batch"
  assert_eq "$1" "$status" "$2: exit status of the batch script (stderr: $(cat "$job_dir/err"))"
}

# 1. SIGUSR1 (the time limit is near): passed on as SIGUSR1, then the job is requeued.
start requeue.sh RUNNING None
kill -USR1 "$batch"
finish 138 "time limit"
assert_eq "stopped USR1 -" "$(sed -n 2p "$job_dir/launch.log")" "time limit: what reached slipway"
assert_eq "requeue 42" "$(cat "$job_dir/scontrol.log")" "time limit: the requeue"
assert_contains "$(cat "$job_dir/err")" "slipway: requeueing job 42 (restart 1 of 2)" "time limit"

# 2. An array task is requeued by ARRAY_JOB_ID_TASK_ID, never by the array's id.
start requeue.sh RUNNING None SLURM_JOB_ID=40 SLURM_ARRAY_JOB_ID=40 SLURM_ARRAY_TASK_ID=2
kill -USR1 "$batch"
finish 138 "array task"
assert_eq "requeue 40_2" "$(cat "$job_dir/scontrol.log")" "array task: the requeue"
assert_eq "start 0 2 launch $work/sig.toml" "$(sed -n 1p "$job_dir/launch.log")" "array task: the launch"

# 3. --max-requeues reached: stopped, not requeued.
start requeue.sh RUNNING None SLURM_RESTART_COUNT=2
kill -USR1 "$batch"
finish 138 "no requeue left"
assert_eq "" "$(cat "$job_dir/scontrol.log")" "no requeue left: scontrol requeue"
assert_contains "$(cat "$job_dir/err")" "job 42 was requeued 2 times already: not again" "no requeue left"

# 4. SIGTERM while Slurm ends the job (scontrol requeue, scancel, time limit,
#    end of GraceTime): Slurm signals slipway itself; the script adds no
#    second SIGTERM (slipway would kill every task at once) and never requeues.
start requeue.sh COMPLETING None
kill -TERM "$batch" "$launcher"
finish 143 "Slurm's SIGTERM"
assert_eq "stopped TERM -" "$(sed -n 2p "$job_dir/launch.log")" "Slurm's SIGTERM: what reached slipway"
assert_eq "" "$(cat "$job_dir/scontrol.log")" "Slurm's SIGTERM: scontrol requeue"
assert_contains "$(cat "$job_dir/err")" "Slurm is ending or requeueing job 42" "Slurm's SIGTERM"

# 5. SIGTERM to the batch shell alone (scancel --batch --signal=TERM, the job
#    still runs): passed on; no requeue.
start requeue.sh RUNNING None
kill -TERM "$batch"
finish 143 "SIGTERM to the batch shell"
assert_eq "stopped TERM -" "$(sed -n 2p "$job_dir/launch.log")" "SIGTERM to the batch shell: what reached slipway"
assert_eq "" "$(cat "$job_dir/scontrol.log")" "SIGTERM to the batch shell: scontrol requeue"

# 6. Preemption without preempt_send_user_signal: only the steps get SIGTERM;
#    slipway stops the program and exits; the job, being preempted, is
#    requeued by the script (Slurm would complete it), whatever --max-requeues.
start requeue.sh RUNNING 2026-11-28T09:35:41 SLURM_RESTART_COUNT=5
kill -TERM "$launcher"
finish 143 "preemption"
assert_eq "requeue 42" "$(cat "$job_dir/scontrol.log")" "preemption: the requeue"
assert_contains "$(cat "$job_dir/err")" "job 42 is being preempted (since 2026-11-28T09:35:41): requeueing it now" \
  "preemption"

# signalled WHAT SCRIPT PREEMPT SIGNAL TARGET STATUS REQUEUE: SCRIPT runs
# (job RUNNING, PreemptTime PREEMPT), SIGNAL goes to TARGET ($batch or
# $launcher, named); the script ends with STATUS and asked scontrol for
# REQUEUE ("requeue 42", or "" for none).
signalled() {
  local what=$1 file=$2 preempt=$3 sig=$4 target=$5 expected=$6 requeued=$7
  start "$file" RUNNING "$preempt"
  kill "-$sig" "${!target}"
  finish "$expected" "$what"
  assert_eq "$requeued" "$(cat "$job_dir/scontrol.log")" "$what: scontrol requeue"
}

# 7. Preemption with preempt_send_user_signal: SIGUSR1 passed on, one requeue.
signalled "preemption with the user signal" requeue.sh 2026-11-28T09:35:41 USR1 batch 138 "requeue 42"
# 8. The program finished (status 0) as a preemption began: done, not requeued.
signalled "finished while preempted" requeue.sh 2026-11-28T09:35:41 HUP launcher 0 ""
# 9. slipway killed outright while the job is preempted: requeued.
signalled "killed while preempted" requeue.sh 2026-11-28T09:35:41 KILL launcher 137 "requeue 42"
# 10. Without --requeue: SIGUSR1 stops the program, nothing is requeued.
signalled "without --requeue" plain.sh 2026-11-28T09:35:41 USR1 batch 138 ""
echo "batch_signals: all scenarios passed"
