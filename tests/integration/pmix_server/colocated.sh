#!/usr/bin/env bash
# Colocated mpi nodes: one agent (one PMIx server) per pair of ranks, the
# two being local peers; the world still spans both agents.
source "$(dirname "$0")/lib.sh"
run_slipway "$WORK/out" run "$(pmix_topology colocated)"
expect_status 0
expect_count "$WORK/out" "^(solver|helper)\.[01]: allreduce: rank [0-3] of 4 app [01] on .*: sum 10 ok$" 4
echo PASS
