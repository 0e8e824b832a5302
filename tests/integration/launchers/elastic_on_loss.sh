#!/usr/bin/env bash
# An elastic none node with on_loss = "shrink" and max_retries = 0: when
# actor.3 fails, the node carries on with three replicas instead of failing
# the program (no retry is used, none was allowed); its learner sees the
# live set shrink, and the program succeeds.
source "$(dirname "$0")/lib.sh"
run_slipway "$WORK/out" run "$(topology none_on_loss)"
expect_status 0
expect_line "$WORK/out" "^slipway: actor\.3 exited with status 4 \(log: "
expect_line "$WORK/out" "^slipway: actor shrinks from 4 to 3 replicas \(actor\.3 exited with status 4; on_loss = \"shrink\"\)$"
expect_line "$WORK/out" "^learner\.0: three actors left$"
expect_no_line "$WORK/out" "restarting|failed:"
wait_until 10 no_survivors
echo PASS
