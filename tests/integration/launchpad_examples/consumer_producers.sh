#!/usr/bin/env bash
# examples/launchpad/consumer_producers.py (Launchpad's consumer_producers,
# ported by its imports) run locally: the consumer calls every producer
# through futures for 10 steps, then sw.stop() stops the program (the
# producers too), which ends 0. Run twice: with the default 2 producers, and
# with --num_producers=3 (the flag reaches make_program's argument, which
# every task rebuilds the program with).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/example_lib.sh"

check() {  # EXPECTED_RESULTS [ARGS...]
  local results=$1 steps
  shift
  run_program "$root/examples/launchpad/consumer_producers.py" "$@"
  [ "$status" -eq 0 ] || fail "the program ($*) exited with status $status"
  steps=$(grep -cxF "consumer.0: Results: $results" <<<"$output" || true)
  [ "$steps" -eq 10 ] || fail "the consumer ($*) logged $steps steps with results $results, not 10"
  expect "program 'consumer_producers' finished: stop requested by consumer\.0" \
    "the program ($*) did not end through the consumer's sw.stop()"
}

check '[0, 1]'
check '[0, 1, 2]' --num_producers=3
expect "running program 'consumer_producers' \(4 tasks\)" "--num_producers=3 did not make 3 producers"
echo "$script: ok"
