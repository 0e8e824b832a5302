#!/usr/bin/env bash
# `slipway launch` outside an allocation, for a program whose nodes need two
# partitions: one heterogeneous job, each node in its partition's hosts.
source "$(dirname "$0")/lib.sh"
run_logged out "$SLIPWAY" launch "$(topology het)"
[ "$status" -eq 0 ] || fail "slipway launch exited $status"
expect_line out "^cruncher\.0: on fn[1-3] partition cpu$"
expect_line out "^cruncher\.1: on fn[1-3] partition cpu$"
expect_line out "^trainer\.0: on fn[45] partition gpu"
echo PASS
