#!/usr/bin/env bash
# Runs examples/actor_learner.toml under `slipway run`: two replay shards
# (slipway-replay), a learner sampling prioritized batches and updating
# priorities, elastic actors writing transitions and episode summaries.
# Needs SLIPWAY (which puts slipway's Python package and courier library
# in every task's environment, as for users).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../channels/example_lib.sh"

run_example actor_learner.toml
for shard in 0 1; do
  expect "^replay\.$shard: slipway-replay: serving replay\.$shard \(attempt 0\)" "replay.$shard did not serve"
  expect "^replay\.$shard: slipway-replay: checkpoint .*: [0-9]+ items" "replay.$shard wrote no checkpoint"
done
expect "^learner\.0: step 150: weight" "the learner did not train 150 steps"
expect "^learner\.0: learned weight [12]\.[0-9]+ in 150 steps from actors \[0, 1" \
  "the learner did not learn from the actors' transitions"
expect "^learner\.0: .* episode summaries from actors \[0, 1" "the episodes queue carried nothing"
expect "^actor\.[0-3]: sent 40 episodes" "no actor finished"
expect "program 'actor-learner' finished: all tasks finished" "no clean finish"
echo "$script: ok"
