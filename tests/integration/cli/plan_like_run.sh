#!/usr/bin/env bash
# Issue 11 item 4: `slipway plan FILE` shows what `slipway run FILE` runs.
# A program asking for more CPUs than any machine has is planned
# oversubscribed, with the same note `run` prints; --cpus-per-host still
# plans exactly what it says.
source "$(dirname "$0")/lib.sh"

program "$WORK/wide.toml" wide w true "cpus = 4096" "replicas = 16"

run_slipway "$WORK/plan.out" plan "$WORK/wide.toml"
expect_status 0
expect_line "$WORK/plan.out" '^slipway: note: the program asks for 65536 cpus and this machine has [0-9]+; running oversubscribed \(--cpus-per-host to plan otherwise\)$'
expect_line "$WORK/plan.out" '^w\.15 +[^ ]+ +4096 '

run_slipway "$WORK/run.out" run "$WORK/wide.toml"
expect_status 0
diff <(grep 'note:' "$WORK/plan.out") <(grep 'note:' "$WORK/run.out") ||
  fail "plan and run give different notes"

run_slipway "$WORK/exact.out" plan "$WORK/wide.toml" --cpus-per-host 8
expect_status 2
expect_line "$WORK/exact.out" "wide.toml: node 'w' replica 0 needs 4096 cpus"
expect_no_line "$WORK/exact.out" 'oversubscribed'

# Every example plans on this machine, whatever its size.
for example in "$EXAMPLES"/*.toml; do
  run_slipway "$WORK/example.out" plan "$example"
  expect_status 0
done
echo PASS
