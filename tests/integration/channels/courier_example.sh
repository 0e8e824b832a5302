#!/usr/bin/env bash
# Runs examples/courier.toml under `slipway run`: a Python parameter server
# (a courier node) and three workers calling it by name over UCX. The server
# crashes once on purpose; slipway relaunches it and the workers' handles
# follow its new address. Needs SLIPWAY (the slipway binary) and the built
# libslipway-courier.so (SLIPWAY_COURIER_LIBRARY).
set -euo pipefail
: "${SLIPWAY:?path of the slipway binary}"
: "${SLIPWAY_COURIER_LIBRARY:?path of libslipway-courier.so}"
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
runs=$(mktemp -d)
trap 'rm -rf "$runs"' EXIT
export SLIPWAY_COURIER_LIBRARY

status=0
output=$(timeout 240 "$SLIPWAY" run "$root/examples/courier.toml" --run-root "$runs" 2>&1) || status=$?
printf '%s\n' "$output"
fail() { echo "courier_example: $*" >&2; exit 1; }
[ "$status" -eq 0 ] || fail "slipway run exited with status $status"
grep -q "ps.0: crashing on purpose at version 12 (attempt 0)" <<<"$output" || fail "no crash"
grep -q "slipway: restarting ps.0 (attempt 1)" <<<"$output" || fail "ps.0 was not restarted"
grep -q "ps.0: serving get_weights, push_gradient as ps.0 (attempt 1)" <<<"$output" ||
  fail "the relaunched ps.0 did not serve"
# Every worker finishes against the relaunched server; those that started
# early enough also talked to the first one.
for r in 0 1 2; do
  grep -Eq "^worker\.$r: done: w=.* server attempts seen=\[(0, )?1\]" <<<"$output" ||
    fail "worker.$r did not finish against the relaunched server"
done
grep -Eq "^worker\.[0-2]: done: .* seen=\[0, 1\]" <<<"$output" ||
  fail "no worker followed the server from its first attempt to its second"
grep -q "program 'courier-ps' finished: all tasks finished" <<<"$output" || fail "no clean finish"
echo "courier_example: ok"
