#!/usr/bin/env bash
# Runs pool_exit.toml 5 times: a Pool's caller that exits right after map()
# without closing the pool must exit 0. Before the Pool closed its endpoint at
# exit, about one run in two ended with "FATAL: exception not rethrown"
# (SIGABRT): the handler of the last result was replying when the interpreter
# finalized. Needs SLIPWAY and SLIPWAY_COURIER_LIBRARY.
set -euo pipefail
: "${SLIPWAY:?path of the slipway binary}"
: "${SLIPWAY_COURIER_LIBRARY:?path of libslipway-courier.so}"
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
runs=$(mktemp -d)
trap 'rm -rf "$runs"' EXIT
export UCX_NET_DEVICES=${UCX_NET_DEVICES:-lo}
export SLIPWAY_COURIER_LIBRARY

# shellcheck source=../../lib/checks.sh
source "$here/../../lib/checks.sh"  # fail

for run in 1 2 3 4 5; do
  status=0
  output=$(timeout 120 "$SLIPWAY" run "$here/pool_exit.toml" --run-root "$runs" 2>&1) || status=$?
  if [ "$status" -ne 0 ] || grep -q 'FATAL' <<<"$output"; then
    printf '%s\n' "$output"
    fail "run $run: slipway run exited with status $status"
  fi
  grep -q '^driver\.0: exit_driver: \[0, 1, 4, 9, 16, 25, 36, 49\]$' <<<"$output" || {
    printf '%s\n' "$output"
    fail "run $run: the driver did not get its results"
  }
done
echo "pool_exit: 5 runs, the caller exited cleanly each time"
