#!/usr/bin/env bash
# A fence whose member fails: the run ends (the others' fence fails or the
# launcher stops them) instead of hanging, and the program fails.
source "$(dirname "$0")/lib.sh"
run_slipway "$WORK/out" run "$(pmix_topology fence_die)"
[ "$status" -ne 0 ] || fail "the program succeeded although ranks.2 failed"
[ "$status" -ne 124 ] || fail "slipway run hung (killed by the timeout)"
expect_line "$WORK/out" "^ranks\.2: probe: rank 2 leaving without the fence$"
wait_until 10 no_survivors
echo PASS
