#!/usr/bin/env bash
# Open MPI fetching every peer's data by direct modex (no collecting fence):
# the servers serve each other through the rendezvous.
source "$(dirname "$0")/lib.sh"
export SLIPWAY_PMIX_VERBOSE=1
run_slipway "$WORK/out" run "$(pmix_topology direct_modex)"
expect_status 0
expect_count "$WORK/out" "allreduce: rank [0-2] of 3 app 0 on .*: sum 6 ok$" 3
# Peers' data came by direct modex (how many fetches depends on Open MPI's
# allreduce algorithm), and none failed.
n=$(count_lines "$WORK/out" "pmix: direct modex for ranks\.[0-2]: [0-9]+ bytes")
[ "$n" -ge 1 ] || fail "expected direct modex answers, saw none"
expect_no_line "$WORK/out" "direct modex for .* failed"
echo PASS
