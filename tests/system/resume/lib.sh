# shellcheck shell=bash
# Helpers of the resume system tests (sourced): jobs' fields and states on
# the preemption test cluster (tests/cluster, SLIPWAY_CLUSTER_PREEMPT), a
# high-priority job that preempts, and starting a requeued job at once.
source "$(dirname "${BASH_SOURCE[0]}")/../../lib/checks.sh"

# field JOB NAME: NAME's value in `scontrol show job JOB` (first component).
field() {
  scontrol show job -o "$1" 2>/dev/null | head -n 1 | tr ' ' '\n' | sed -n "s/^$2=//p" | head -n 1
}

# state_is JOB STATE: the job (an array task: A_T) is in STATE.
state_is() { [[ $(field "$1" JobState) == "$2" ]]; }

# wait_state SECONDS JOB STATE
wait_state() {
  local limit=$1 job=$2 state=$3
  local deadline=$((SECONDS + limit))
  until state_is "$job" "$state"; do
    ((SECONDS < deadline)) || fail "job $job not $state after ${limit}s (it is $(field "$job" JobState), reason $(field "$job" Reason))"
    sleep 0.5
  done
}

# start_now JOB: a requeued job pends until its BeginTime (cred_expire + 1 s
# after the requeue, then the next scheduling pass); start it at once.
start_now() {
  wait_state 60 "$1" PENDING
  scontrol update JobId="$1" StartTime=now
}

# preempt SECONDS: submits a job to partition high that needs a whole host
# for SECONDS, and prints its id: Slurm preempts a job of partition low.
preempt() {
  sbatch --parsable --partition=high --nodes=1 --exclusive --time=5 \
    --output=/dev/null --wrap "sleep $1"
}

# lines FILE REGEX: how many lines of FILE match REGEX (0 when none or no FILE).
lines() {
  local n
  n=$(grep -Ec -- "$2" "$1" 2>/dev/null) || true
  echo "${n:-0}"
}

# has_lines N FILE REGEX: at least N lines of FILE match REGEX (for wait_until).
has_lines() { (($(lines "$2" "$3") >= $1)); }
