#!/usr/bin/env bash
# The contract environment of docs/contract.md reaches every task, and the
# addresses one task sees are the ports its peers were given.
source "$(dirname "$0")/lib.sh"
run_slipway "$WORK/out" run "$(topology contract_env)"
expect_status 0
out="$WORK/out"
for task in a.0 a.1 b-side.0; do
  expect_line "$out" "^$task: SLIPWAY_PROGRAM=contract$"
  expect_line "$out" "^$task: SLIPWAY_ATTEMPT=0$"
  expect_line "$out" "^$task: SLIPWAY_RDZV=127\.0\.0\.1:[0-9]+$"
  expect_line "$out" "^$task: SLIPWAY_TOKEN=[0-9a-f]{64}$"
done
expect_line "$out" "^a.1: SLIPWAY_NODE=a$"
expect_line "$out" "^a.1: SLIPWAY_REPLICA=1$"
expect_line "$out" "^a.1: SLIPWAY_REPLICAS=2$"
expect_line "$out" "^b-side.0: SLIPWAY_NODE=b-side$"
expect_line "$out" "^b-side.0: SLIPWAY_REPLICAS=1$"
# Ports given to a.0 and a.1 are what b-side.0 sees, in replica order.
p0=$(sed -n 's/^a\.0: SLIPWAY_PORT_HTTP=//p' "$out")
p1=$(sed -n 's/^a\.1: SLIPWAY_PORT_HTTP=//p' "$out")
[ -n "$p0" ] && [ -n "$p1" ] && [ "$p0" != "$p1" ] || fail "a.0/a.1 ports: '$p0' '$p1'"
expect_line "$out" "^b-side.0: SLIPWAY_ADDR_A_HTTP=127\.0\.0\.1:$p0,127\.0\.0\.1:$p1$"
grpc=$(sed -n 's/^b-side\.0: SLIPWAY_PORT_GRPC=//p' "$out")
admin=$(sed -n 's/^b-side\.0: SLIPWAY_PORT_ADMIN=//p' "$out")
expect_line "$out" "^a.0: SLIPWAY_ADDR_B_SIDE_GRPC=127\.0\.0\.1:$grpc$"
expect_line "$out" "^a.1: SLIPWAY_ADDR_B_SIDE_ADMIN=127\.0\.0\.1:$admin$"
# A task sees no address of nodes it does not handle (a does not handle a).
expect_no_line "$out" "^a\.[01]: SLIPWAY_ADDR_A_"
# Every line of the task's output is also in its log file.
log=$(ls "$SLIPWAY_RUN_ROOT"/latest/logs/a.1.log)
grep -q "^SLIPWAY_REPLICA=1$" "$log" || fail "a.1.log lacks the task's output"
echo PASS
