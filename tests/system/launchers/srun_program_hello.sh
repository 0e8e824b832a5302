#!/usr/bin/env bash
# `srun -N3 --program=examples/hello.toml` (the SPANK plugin hands over to
# the controller, which obtains the allocation) completes, with the
# contract environment in every task.
source "$(dirname "$0")/lib.sh"
run_logged out srun -N3 -p cpu --program="$SLIPWAY_SOURCE_DIR/examples/hello.toml"
[ "$status" -eq 0 ] || fail "srun --program exited $status"
for task in ping.0 pong.0 client.0 client.1; do
  node=${task%.*}
  expect_line out "^$task: SLIPWAY_PROGRAM=hello$"
  expect_line out "^$task: SLIPWAY_NODE=$node$"
  expect_line out "^$task: SLIPWAY_REPLICA=${task#*.}$"
  expect_line out "^$task: SLIPWAY_ATTEMPT=0$"
  expect_line out "^$task: SLIPWAY_RDZV=10\.213\.[0-9]+\.1:[0-9]+$"
done
expect_line out "^client.1: SLIPWAY_ADDR_PING_TCP=10\.213\.[0-9]+\.[0-9]+:[0-9]+$"
expect_line out "^client.0: hello from client.0: every handled node answered$"
expect_line out "^client.1: hello from client.1: every handled node answered$"
expect_line out "program 'hello' finished"
echo PASS
