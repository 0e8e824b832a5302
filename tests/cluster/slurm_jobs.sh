# shellcheck shell=bash
# Helpers of the system tests about Slurm jobs (sourced after
# tests/lib/checks.sh): a job's fields and state as scontrol shows them,
# bounded waits for a state, and starting a requeued job as soon as Slurm
# lets it run.

# field JOB NAME: NAME's value in `scontrol show job JOB` (first component).
field() {
  scontrol show job -o "$1" 2>/dev/null | head -n 1 | tr ' ' '\n' | sed -n "s/^$2=//p" | head -n 1
}

# state_is JOB STATE: the job (an array task: A_T) is in STATE.
state_is() { [[ $(field "$1" JobState) == "$2" ]]; }

# wait_state SECONDS JOB STATE: fails at once when the job ended otherwise.
wait_state() {
  local limit=$1 job=$2 state=$3 now
  local deadline=$((SECONDS + limit))
  while :; do
    now=$(field "$job" JobState)
    [[ $now == "$state" ]] && return 0
    case $now in
      COMPLETED | FAILED | CANCELLED | TIMEOUT | NODE_FAIL | BOOT_FAIL | OUT_OF_MEMORY | DEADLINE)
        fail "job $job ended $now (reason $(field "$job" Reason), exit code $(field "$job" ExitCode)), not $state" ;;
    esac
    ((SECONDS < deadline)) || fail "job $job not $state after ${limit}s (it is ${now:-gone}, reason $(field "$job" Reason))"
    sleep 0.5
  done
}

# start_now JOB [SECONDS]: once the job pends (within SECONDS, 60) and is
# eligible, start it. A requeued job pends until its EligibleTime
# (cred_expire + 1 s after it ended: before that slurmd refuses its revoked
# credential and the job fails), then until a scheduling pass takes it (20 s
# and more on this cluster): StartTime=now at EligibleTime saves the wait.
start_now() {
  local eligible
  wait_state "${2:-60}" "$1" PENDING
  eligible=$(date -d "$(field "$1" EligibleTime)" +%s) || fail "no EligibleTime for job $1"
  while (($(date +%s) <= eligible)); do sleep 0.5; done
  # The scheduler may have taken it meanwhile ("no longer pending").
  scontrol update JobId="$1" StartTime=now 2>/dev/null || ! state_is "$1" PENDING ||
    fail "could not start the pending job $1"
}
