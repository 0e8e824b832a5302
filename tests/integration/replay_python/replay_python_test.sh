#!/usr/bin/env bash
# Runs the Python replay client (driver.py, worker.py) against real
# slipway-replay shards under `slipway run`. Needs SLIPWAY (its slipway-exec
# and slipway-replay beside it) and SLIPWAY_COURIER_LIBRARY.
#   replay_python_test.sh client     replay_python.toml: the client, a Pool, a shard killed
#   replay_python_test.sh pool_exit  pool_exit.toml 5 times: a Pool's caller that exits right
#                                    after map() without closing the pool must exit 0 (before
#                                    the Pool closed its endpoint at exit, about one run in two
#                                    ended with "FATAL: exception not rethrown", SIGABRT)
set -euo pipefail
: "${SLIPWAY:?path of the slipway binary}"
: "${SLIPWAY_COURIER_LIBRARY:?path of libslipway-courier.so}"
mode=${1:-client}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
runs=$(mktemp -d)
trap 'rm -rf "$runs"' EXIT
# Loopback only (see tests/integration/channels/transports.hpp).
export UCX_NET_DEVICES=${UCX_NET_DEVICES:-lo}
export SLIPWAY_COURIER_LIBRARY

# shellcheck source=../../lib/checks.sh
source "$here/../../lib/checks.sh"  # fail

if [ "$mode" = pool_exit ]; then
  for run in 1 2 3 4 5; do
    status=0
    output=$(timeout 120 "$SLIPWAY" run "$here/pool_exit.toml" --run-root "$runs" 2>&1) || status=$?
    if [ "$status" -ne 0 ] || grep -q 'FATAL' <<<"$output" ||
       ! grep -q '^driver\.0: exit_driver: \[0, 1, 4, 9, 16, 25, 36, 49\]$' <<<"$output"; then
      printf '%s\n' "$output"
      fail "run $run: slipway run exited with status $status, or the driver did not get its results"
    fi
  done
  echo "pool_exit: 5 runs, the caller exited cleanly each time"
  exit 0
fi

status=0
output=$(timeout 240 "$SLIPWAY" run "$here/replay_python.toml" --run-root "$runs" 2>&1) || status=$?
printf '%s\n' "$output"
[ "$status" -eq 0 ] || fail "slipway run exited with status $status"
grep -q '^driver\.0.*driver: ok$' <<<"$output" || fail "the driver did not finish its checks"
grep -q 'crash_once: exiting mid-lease' <<<"$output" || fail "no worker died mid-lease"
grep -q 'driver: killed shard 1' <<<"$output" || fail "shard 1 was not killed"
