#!/usr/bin/env bash
# A task that fails twice then succeeds completes within max_retries = 2,
# and fails the program with max_retries = 1, naming the task.
source "$(dirname "$0")/lib.sh"
run_slipway "$WORK/out2" run "$(topology retries_2)"
expect_status 0
for attempt in 0 1 2; do expect_line "$WORK/out2" "^flaky.0: attempt $attempt$"; done
expect_line "$WORK/out2" "restarting flaky.0 \(attempt 2\)"
expect_line "$WORK/out2" "^steady.0: steady done$"

run_slipway "$WORK/out1" run "$(topology retries_1)"
expect_status 1
expect_line "$WORK/out1" "^flaky.0: attempt 1$"
expect_no_line "$WORK/out1" "^flaky.0: attempt 2$"
expect_line "$WORK/out1" "failed: task flaky.0 exited with status 3 on attempt 1; retries exhausted \(max_retries = 1\)"
echo PASS
