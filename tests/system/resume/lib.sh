# shellcheck shell=bash
# Helpers of the resume system tests (sourced), on the preemption test
# cluster (tests/cluster, SLIPWAY_CLUSTER_PREEMPT): a high-priority job that
# preempts, a cluster setting, and the test program's runs and checks.
source "$(dirname "${BASH_SOURCE[0]}")/../../lib/checks.sh"
source "$(dirname "${BASH_SOURCE[0]}")/../../cluster/slurm_jobs.sh"

# preempt SECONDS [HOSTS]: submits a job to partition high that needs HOSTS
# whole hosts (1) for SECONDS, and prints its id: Slurm preempts the jobs of
# partition low on them.
preempt() {
  sbatch --parsable --partition=high --nodes="${2:-1}" --exclusive --time=5 \
    --output=/dev/null --wrap "sleep $1"
}

# preempt_send_user_signal: sets SlurmctldParameters=preempt_send_user_signal
# on the running cluster (run-system-test.sh puts slurm.conf back after the
# test): a preemption then sends the job's --signal instead of SIGTERM to its
# steps.
preempt_send_user_signal() {
  echo "SlurmctldParameters=preempt_send_user_signal" >>"$SLIPWAY_CLUSTER_DIR/etc/slurm.conf"
  scontrol reconfigure
  wait_until 30 eval 'scontrol show config | grep -Eq "^SlurmctldParameters += preempt_send_user_signal$"'
}

# lines FILE REGEX: how many lines of FILE match REGEX (0 when none or no FILE).
lines() {
  local n
  n=$(grep -Ec -- "$2" "$1" 2>/dev/null) || true
  echo "${n:-0}"
}

# has_lines N FILE REGEX: at least N lines of FILE match REGEX (for wait_until).
has_lines() { (($(lines "$2" "$3") >= $1)); }

# ---- the test program (program/resume.toml) --------------------------------
# Needs SLIPWAY (the slipway binary). Runs live under $PWD/runs, which every
# host sees; the hosts are network namespaces of one machine (UCX over TCP,
# as tests/system/launchers/replay_cluster.sh says).
RESUME_PROGRAM=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/program
export SLIPWAY_RUN_ROOT=$PWD/runs UCX_TLS=tcp

# submit_program NAME RESUMES [SLIPWAY SBATCH OPTIONS...]: writes the test
# program as $PWD/NAME.toml (program NAME; its learner and actor end once
# the run has been resumed RESUMES times), submits it to partition low with
# `slipway sbatch --requeue` (output NAME-JOB.out, or NAME-JOB_TASK.out),
# prints the job id.
submit_program() {
  local name=$1 resumes=$2 out
  shift 2
  sed -e "s|@NAME@|$name|g" -e "s|@HERE@|$RESUME_PROGRAM|g" -e "s|@RESUMES@|$resumes|g" \
    "$RESUME_PROGRAM/resume.toml" >"$PWD/$name.toml"
  out=$("$SLIPWAY" sbatch "$PWD/$name.toml" --requeue --sbatch-arg=--partition=low \
    --sbatch-arg=--output="$PWD/$name-%j.out" "$@") || fail "slipway sbatch of $name: $out"
  sed -n 's/^Submitted batch job \([0-9]*\)$/\1/p' <<<"$out"
}

# run_of NAME KEY: the run directory of program NAME in job KEY (JOB, or
# JOB_TASK for an array task), from its link NAME.job-KEY.
run_of() { readlink -f "$SLIPWAY_RUN_ROOT/$1.job-$2"; }

# log_of NAME KEY TASK: TASK's log (NODE.REPLICA) in that run.
log_of() { echo "$(run_of "$1" "$2")/logs/$3.log"; }

# progressed NAME KEY: the learner has saved step 10 and the actor has had
# items acknowledged in that run (the program is well under way).
progressed() {
  [[ -e $SLIPWAY_RUN_ROOT/$1.job-$2 ]] &&
    has_lines 1 "$(log_of "$1" "$2" learner.0)" '^learner: saved step 10$' &&
    [[ -s $(run_of "$1" "$2")/state/actor/acked ]]
}

# after_resume FILE: FILE's lines from the banner of resume 1 on.
after_resume() { sed -n '/^----- slipway: resume 1 /,$p' "$1"; }

# check_resumed NAME KEY: the run of NAME in job KEY was resumed once, in
# the same run directory: RUN/resume says so, every task had SLIPWAY_RESUME
# 0 then 1, each log has the resume banner, no task had a notice after it
# (the program just went on), the learner went on from at or past its last
# saved step and finished, and every item the actor had acknowledged before
# the notice was in the replay after the resume.
check_resumed() {
  local name=$1 key=$2 run learner actor saved resumed line
  run=$(run_of "$name" "$key")
  [[ -d $run ]] || fail "no run directory linked as $SLIPWAY_RUN_ROOT/$name.job-$key"
  assert_eq "resume 1" "$(head -n 1 "$run/resume")" "$run/resume"
  learner=$run/logs/learner.0.log actor=$run/logs/actor.0.log
  for log in "$learner" "$actor"; do
    expect_line "$log" "^----- slipway: resume 1 of run $(basename "$run") -----$"
  done
  for log in "$learner" "$run/logs/replay.0.log" "$run/logs/replay.1.log"; do
    if after_resume "$log" | grep -E 'learner: stopping at|written for notice'; then
      fail "a task had a checkpoint notice after the resume, with nothing to give one ($log): the notice of the stop before the resume, left in $run/notice/?"
    fi
  done
  expect_line "$learner" '^learner: start resume 0 '
  expect_line "$actor" '^actor: start resume 0 '
  expect_line "$actor" '^actor: start resume 1 '
  saved=$(sed -n '/^----- slipway: resume 1 /q; s/^learner: saved step \([0-9]*\)$/\1/p' "$learner" | tail -n 1)
  resumed=$(sed -n 's/^learner: start resume 1 array [^ ]* step \([0-9]*\)$/\1/p' "$learner")
  [[ -n $saved && -n $resumed ]] || fail "no saved step ($saved) or resumed step ($resumed) in $learner"
  ((resumed >= saved && saved >= 10)) ||
    fail "the learner resumed at step $resumed, its last save before the resume was step $saved ($learner)"
  expect_line "$learner" '^learner: done at step '
  line=$(grep -E '^actor: resume 1: ' "$actor") || fail "the actor did not check the replay after the resume ($actor)"
  [[ $line =~ ^actor:\ resume\ 1:\ ([0-9]+)\ items\ acknowledged\ before\ the\ notice,\ ([0-9]+)\ missing,\ table\ ([0-9]+)\ of\ ([0-9]+)$ ]] ||
    fail "unexpected line in $actor: $line"
  ((BASH_REMATCH[1] > 0)) || fail "the actor had no item acknowledged before the notice: $line"
  ((BASH_REMATCH[2] == 0)) || fail "items acknowledged before the notice were lost: $line; $(grep '^actor: missing' "$actor")"
  ((BASH_REMATCH[3] >= BASH_REMATCH[4])) || fail "the table lost items: $line"
  expect_line "$actor" '^actor: done after '
}

# one_run NAME COUNT: the run root holds COUNT run directories of NAME.
one_run() {
  local runs
  runs=$(find "$SLIPWAY_RUN_ROOT" -mindepth 1 -maxdepth 1 -type d -name "$1-*" | wc -l)
  assert_eq "$2" "$runs" "run directories of $1 in $SLIPWAY_RUN_ROOT"
}

# show_run NAME KEY: prints the run's task logs and the job's output (on failure).
show_run() {
  local f
  for f in "$(run_of "$1" "$2")"/logs/*.log "$PWD/$1-${2%%_*}.out" "$PWD/$1-$2.out"; do
    [[ -r $f ]] && { echo "--- $f"; tail -n 60 "$f"; }
  done
  return 0
}
