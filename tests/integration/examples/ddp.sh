#!/usr/bin/env bash
# Runs examples/ddp.toml under `slipway run`: three torch replicas train one
# model with DistributedDataParallel over gloo and agree on the weights.
# Needs SLIPWAY and Debian's python3-torch.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../channels/example_lib.sh"
/usr/bin/python3 -c "import torch.distributed" || fail "python3-torch is not installed (scripts/setup.sh installs it)"

run_example ddp.toml
for rank in 0 1 2; do
  expect "^trainer\.$rank: rank $rank/3 step 3: loss [0-9.]+$" "rank $rank did not train 3 steps"
  expect "^trainer\.$rank: rank $rank/3: 3 steps done, weights agree across ranks$" "rank $rank did not finish"
done
expect "program 'ddp' finished: all tasks finished" "no clean finish"
echo "$script: ok"
