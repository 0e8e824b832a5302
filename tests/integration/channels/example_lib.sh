# shellcheck shell=bash
# Shared by the courier example scripts: run_example TOPOLOGY runs it under
# `slipway run` (into a temporary run root) and leaves its output in $output;
# fail MESSAGE ends the script; expect REGEX MESSAGE checks one line.
: "${SLIPWAY:?path of the slipway binary}"
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
runs=$(mktemp -d)
trap 'rm -rf "$runs"' EXIT
# shellcheck disable=SC2034  # read by the scripts that source this file
script=$(basename "$0" .sh)
# Loopback only (see transports.hpp): the test cluster's veth pairs come and
# go while these run.
export UCX_NET_DEVICES=${UCX_NET_DEVICES:-lo}

# shellcheck source=../../lib/checks.sh
source "$(dirname "${BASH_SOURCE[0]}")/../../lib/checks.sh"  # fail

run_example() {
  local status=0
  output=$(timeout 240 "$SLIPWAY" run "$root/examples/$1" --run-root "$runs" 2>&1) || status=$?
  printf '%s\n' "$output"
  [ "$status" -eq 0 ] || fail "slipway run exited with status $status"
}

expect() {
  grep -Eq "$1" <<<"$output" || fail "$2"
}
