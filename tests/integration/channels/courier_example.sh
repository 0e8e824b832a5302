#!/usr/bin/env bash
# Runs examples/courier.toml under `slipway run`: a Python parameter server
# (a courier node) and three workers calling it by name over UCX. The server
# crashes once on purpose; slipway relaunches it and the workers' handles
# follow its new address. Needs SLIPWAY (the slipway binary) and the built
# libslipway-courier.so (SLIPWAY_COURIER_LIBRARY).
set -euo pipefail
: "${SLIPWAY_COURIER_LIBRARY:?path of libslipway-courier.so}"
export SLIPWAY_COURIER_LIBRARY
source "$(dirname "${BASH_SOURCE[0]}")/example_lib.sh"

run_example courier.toml
expect "ps\.0: crashing on purpose at version 12 \(attempt 0\)" "no crash"
expect "slipway: restarting ps\.0 \(attempt 1\)" "ps.0 was not restarted"
expect "ps\.0: serving get_weights, push_gradient as ps\.0 \(attempt 1\)" \
  "the relaunched ps.0 did not serve"
# Every worker finishes against the relaunched server; those that started
# early enough also talked to the first one.
for r in 0 1 2; do
  expect "^worker\.$r: done: w=.* server attempts seen=\[(0, )?1\]" \
    "worker.$r did not finish against the relaunched server"
done
expect "^worker\.[0-2]: done: .* seen=\[0, 1\]" \
  "no worker followed the server from its first attempt to its second"
expect "program 'courier-ps' finished: all tasks finished" "no clean finish"
echo "$script: ok"
