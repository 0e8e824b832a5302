#!/usr/bin/env bash
# An Open MPI C program (MPI_Init, Allreduce, Finalize): 6 ranks on 3 Slurm
# hosts, one job step per rank, no `srun --mpi=pmix`: the ranks wire up
# through slipway's own PMIx servers, one namespace across the steps.
source "$(dirname "$0")/lib.sh"
run_logged out salloc -N3 --ntasks-per-node=2 -p "$PARTITION" "$SLIPWAY" launch "$(pmix_topology allreduce_hosts)"
[ "$status" -eq 0 ] || fail "salloc slipway launch exited $status"
expect_count out "^ranks\.[0-5]: allreduce: rank [0-5] of 6 app 0 on fn[0-9]+: sum 21 ok$" 6
hosts=$(sed -n 's/^ranks\.[0-9]: allreduce: rank [0-9] of 6 app 0 on \(fn[0-9]*\): sum 21 ok$/\1/p' out | sort -u | wc -l)
[ "$hosts" -eq 3 ] || fail "expected ranks on 3 distinct hosts, found $hosts"
echo PASS
