#!/usr/bin/env bash
# examples/launchpad/batched_inference.py (Launchpad's batching example,
# ported by its imports) run locally: two clients call the server's batched
# compute() 10 times each; calls batched together get the same running sum,
# and the last one the sum of all 20 calls, [100, 120], whatever the batches.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/example_lib.sh"

run_program "$root/examples/launchpad/batched_inference.py"
[ "$status" -eq 0 ] || fail "the program exited with status $status"
for client in 0 1; do
  calls=$(grep -cE "^clients\.$client: Result: \[[0-9]+, [0-9]+\]$" <<<"$output" || true)
  [ "$calls" -eq 10 ] || fail "clients.$client logged $calls results, not 10"
done
expect '^clients\.[01]: Result: \[100, 120\]$' "no call saw the sum of all 20 calls"
# The running sum grows with every batch, so one result seen by both
# clients means their calls went in one batch.
shared=$(sed -nE 's/^clients\.[01]: (Result: .*)$/\1/p' <<<"$output" | sort | uniq -d | wc -l)
[ "$shared" -ge 1 ] || fail "no two calls were batched together"
expect "program 'batching' finished: stop requested by clients\.[01]" \
  "the program did not end through a client's sw.stop()"
echo "$script: ok"
