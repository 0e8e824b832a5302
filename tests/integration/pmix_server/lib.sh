# shellcheck shell=bash
# Helpers of the PMIx scenarios under `slipway run`: the launch scenarios'
# helpers (../launchers/lib.sh) plus topologies that name the test programs.
# Needs SLIPWAY, PMIX_PROBE and MPI_ALLREDUCE in the environment.
source "$(dirname "${BASH_SOURCE[0]}")/../launchers/lib.sh"
: "${PMIX_PROBE:?PMIX_PROBE must point at slipway-pmix-probe}"
: "${MPI_ALLREDUCE:?MPI_ALLREDUCE must point at slipway-mpi-allreduce}"
TOPOLOGIES="$(dirname "${BASH_SOURCE[0]}")/topologies"
export TOPOLOGIES

# pmix_topology NAME: topologies/NAME.toml with @PROBE@, @ALLREDUCE@,
# @MARKER@ and @WORK@ replaced; prints its path.
pmix_topology() {
  local path
  path=$(topology "$1")
  sed -i -e "s|@PROBE@|$PMIX_PROBE|g" -e "s|@ALLREDUCE@|$MPI_ALLREDUCE|g" "$path"
  echo "$path"
}

# count_lines FILE REGEX: how many lines match.
count_lines() {
  grep -Ec -- "$2" "$1" || true
}

expect_count() {  # FILE REGEX N
  local n
  n=$(count_lines "$1" "$2")
  [ "$n" -eq "$3" ] || fail "expected $3 lines matching /$2/ in $1, found $n"
}
