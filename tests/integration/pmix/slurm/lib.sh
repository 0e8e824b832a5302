# Helpers of the PMIx scenarios on the Slurm test cluster (run through
# tests/cluster/run-system-test.sh: SLURM_CONF is set, the working
# directory is a scratch directory every host sees). Needs SLIPWAY,
# MPI_ALLREDUCE and PMIX_PROBE in the environment.
set -euo pipefail
: "${SLIPWAY:?SLIPWAY must point at the slipway binary}"
: "${MPI_ALLREDUCE:?}"
: "${PMIX_PROBE:?}"
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
export SLIPWAY_RUN_ROOT=$PWD/runs
# Partition(s) to allocate from (the cluster's cpu partition by default).
PARTITION=${SLIPWAY_PMIX_PARTITION:-cpu}

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

expect_count() {  # FILE REGEX N
  local n
  n=$(grep -Ec -- "$2" "$1" || true)
  [ "$n" -eq "$3" ] || fail "expected $3 lines matching /$2/ in $1, found $n"
}

# topology NAME: topologies/NAME.toml with the test programs filled in.
topology() {
  sed -e "s|@ALLREDUCE@|$MPI_ALLREDUCE|g" -e "s|@PROBE@|$PMIX_PROBE|g" \
    "$HERE/topologies/$1.toml" >"$PWD/$1.toml"
  echo "$PWD/$1.toml"
}

run_logged() {  # OUTFILE COMMAND...
  local out=$1
  shift
  set +e
  "$@" >"$out" 2>&1
  status=$?
  set -e
  echo "--- $* (exit $status)"
  sed 's/^/    /' "$out"
}
