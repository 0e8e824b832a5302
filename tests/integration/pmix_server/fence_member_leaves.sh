#!/usr/bin/env bash
# A fence whose member leaves without entering it returns an error to the
# others (who report it and exit 0) instead of hanging.
source "$(dirname "$0")/lib.sh"
run_slipway "$WORK/out" run "$(pmix_topology fence_leave)"
expect_status 0
expect_count "$WORK/out" "^ranks\.[01]: probe: rank [01] fence-leave PROC TERMINATED WITHOUT SYNC$" 2
expect_line "$WORK/out" "pmix: fence over 3 rank\(s\) failed: .*ranks\.2 (\(attempt 0\) )?left with exit status 0"
echo PASS
