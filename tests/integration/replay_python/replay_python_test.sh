#!/usr/bin/env bash
# Runs replay_python.toml under `slipway run`: the Python replay client
# (driver.py, worker.py) against real slipway-replay shards. Needs SLIPWAY
# (its slipway-exec and slipway-replay beside it) and SLIPWAY_COURIER_LIBRARY.
set -euo pipefail
: "${SLIPWAY:?path of the slipway binary}"
: "${SLIPWAY_COURIER_LIBRARY:?path of libslipway-courier.so}"
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
runs=$(mktemp -d)
trap 'rm -rf "$runs"' EXIT
# Loopback only (see tests/integration/channels/transports.hpp).
export UCX_NET_DEVICES=${UCX_NET_DEVICES:-lo}
export SLIPWAY_COURIER_LIBRARY

# shellcheck source=../../lib/checks.sh
source "$here/../../lib/checks.sh"  # fail

status=0
output=$(timeout 240 "$SLIPWAY" run "$here/replay_python.toml" --run-root "$runs" 2>&1) || status=$?
printf '%s\n' "$output"
[ "$status" -eq 0 ] || fail "slipway run exited with status $status"
grep -q '^driver\.0.*driver: ok$' <<<"$output" || fail "the driver did not finish its checks"
grep -q 'crash_once: exiting mid-lease' <<<"$output" || fail "no worker died mid-lease"
grep -q 'driver: killed shard 1' <<<"$output" || fail "shard 1 was not killed"
