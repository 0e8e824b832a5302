# shellcheck shell=bash
# Helpers of the `slipway sbatch` system tests (sourced).
source "$(dirname "${BASH_SOURCE[0]}")/../../lib/checks.sh"

# job_id_of OUTPUT: the id in sbatch's "Submitted batch job N".
job_id_of() {
  local id
  id=$(sed -n 's/^Submitted batch job \([0-9]*\)$/\1/p' <<<"$1")
  [[ -n $id ]] || fail "no job id in: $1"
  echo "$id"
}

# job_field JOB OFFSET FIELD: FIELD=value of het component OFFSET of JOB.
job_field() {
  scontrol show job "$1+$2" | tr ' ' '\n' | sed -n "s/^$3=//p" | head -n1
}

# wait_for SECONDS DESCRIPTION CMD...: poll until CMD succeeds.
wait_for() {
  local limit=$1 what=$2; shift 2
  local deadline=$((SECONDS + limit))
  until "$@" >/dev/null 2>&1; do
    ((SECONDS < deadline)) || fail "timed out after ${limit}s waiting for $what"
    sleep 0.5
  done
}
