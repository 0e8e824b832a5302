#!/usr/bin/env bash
# Runs examples/courier_cpp.toml under `slipway run`: the C++ learner serves
# 1 MiB weights to three actors, then asks each actor (resolve_all) how many
# episodes it ran. Needs SLIPWAY and SLIPWAY_COURIER_EXAMPLE (the built
# slipway-courier-example, put on PATH for the topology's commands).
set -euo pipefail
: "${SLIPWAY:?path of the slipway binary}"
: "${SLIPWAY_COURIER_EXAMPLE:?path of slipway-courier-example}"
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
runs=$(mktemp -d)
trap 'rm -rf "$runs"' EXIT
export PATH="$(dirname "$SLIPWAY_COURIER_EXAMPLE"):$PATH"

status=0
output=$(timeout 240 "$SLIPWAY" run "$root/examples/courier_cpp.toml" --run-root "$runs" 2>&1) || status=$?
printf '%s\n' "$output"
fail() { echo "courier_cpp_example: $*" >&2; exit 1; }
[ "$status" -eq 0 ] || fail "slipway run exited with status $status"
for r in 0 1 2; do
  grep -Eq "^learner\.0: learner: actor\.$r ran [1-9][0-9]* episodes" <<<"$output" ||
    fail "the learner did not hear from actor.$r"
done
grep -Eq "^learner\.0: learner: done after [0-9]+ updates, .* from 3 actors" <<<"$output" ||
  fail "the learner did not finish"
grep -q "program 'courier-cpp' finished: all tasks finished" <<<"$output" || fail "no clean finish"
echo "courier_cpp_example: ok"
