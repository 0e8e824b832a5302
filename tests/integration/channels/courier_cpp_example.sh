#!/usr/bin/env bash
# Runs examples/courier_cpp.toml under `slipway run`: the C++ learner serves
# 1 MiB weights to three actors, then asks each actor (resolve_all) how many
# episodes it ran. Needs SLIPWAY and SLIPWAY_COURIER_EXAMPLE (the built
# slipway-courier-example, put on PATH for the topology's commands).
set -euo pipefail
: "${SLIPWAY_COURIER_EXAMPLE:?path of slipway-courier-example}"
PATH="$(dirname "$SLIPWAY_COURIER_EXAMPLE"):$PATH"
export PATH
source "$(dirname "${BASH_SOURCE[0]}")/example_lib.sh"

run_example courier_cpp.toml
for r in 0 1 2; do
  expect "^learner\.0: learner: actor\.$r ran [1-9][0-9]* episodes" \
    "the learner did not hear from actor.$r"
done
expect "^learner\.0: learner: done after [0-9]+ updates, .* from 3 actors" \
  "the learner did not finish"
expect "program 'courier-cpp' finished: all tasks finished" "no clean finish"
echo "$script: ok"
