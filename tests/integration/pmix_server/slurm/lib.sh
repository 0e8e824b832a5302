# shellcheck shell=bash
# Helpers of the PMIx scenarios on the Slurm test cluster: the launch system
# tests' helpers (tests/system/launchers/lib.sh: fail, run_logged, ...) plus
# topologies that name the test programs. Run through
# tests/cluster/run-system-test.sh; needs SLIPWAY, SLIPWAY_SOURCE_DIR,
# MPI_ALLREDUCE and PMIX_PROBE in the environment.
source "$SLIPWAY_SOURCE_DIR/tests/system/launchers/lib.sh"
: "${MPI_ALLREDUCE:?}"
: "${PMIX_PROBE:?}"
PMIX_HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# Partition(s) to allocate from (the cluster's cpu partition by default).
export PARTITION=${SLIPWAY_PMIX_PARTITION:-cpu}  # the partition the scenarios allocate in

expect_count() {  # FILE REGEX N
  local n
  n=$(grep -Ec -- "$2" "$1" || true)
  [ "$n" -eq "$3" ] || fail "expected $3 lines matching /$2/ in $1, found $n"
}

# pmix_topology NAME: topologies/NAME.toml with the test programs filled in.
pmix_topology() {
  sed -e "s|@ALLREDUCE@|$MPI_ALLREDUCE|g" -e "s|@PROBE@|$PMIX_PROBE|g" \
    "$PMIX_HERE/topologies/$1.toml" >"$PWD/$1.toml"
  echo "$PWD/$1.toml"
}
