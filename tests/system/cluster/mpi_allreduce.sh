#!/usr/bin/env bash
# Plain Slurm + PMIx: an Open MPI allreduce over 6 ranks on 3 hosts through
# `srun --mpi=pmix` (Slurm's own PMIx server) sums 1..6 on every rank, with
# its Open MPI files out of the reach of another test cluster's jobs.
#   mpi_allreduce.sh PATH_OF_slipway_mpi_allreduce
set -euo pipefail
source "$(dirname "$0")/../../lib/checks.sh"
prog=$1

# The flake of issue 27 item 14 (rank 1 on fn1 segfaulting at address (nil)
# at start) was Slurm 22.05's PMIx fence without data completing on each host
# alone, so MPI_Init's final barrier was none: see pmix_fence_barrier.sh and
# PMIxCollFence=ring in tests/cluster/lib/config.sh. The "shared memory
# initialization ... open(2) ENOENT" that came with it was a consequence:
# Open MPI registers each segment for clean-up with the PMIx server, which
# removed the dead rank's before its local peer attached it.
#
# Open MPI's files still go to directories of this run's own: every test
# cluster on this machine has hosts fn1..fnN, numbers its jobs from 1 and
# shares /tmp and /dev/shm with the others, and Open MPI names them after host,
# uid and a hash of the PMIx namespace 'slurm.pmix.JOB.STEP' only (the
# segment /dev/shm/vader_segment.fn1.0.36a24d59.0 in every cluster's first
# job), so two clusters running the same job number at once would share them.
export OMPI_MCA_orte_tmpdir_base=$SLIPWAY_TEST_SCRATCH/ompi
export OMPI_MCA_btl_vader_backing_directory=$SLIPWAY_TEST_SCRATCH/ompi-shm
mkdir -p "$OMPI_MCA_orte_tmpdir_base" "$OMPI_MCA_btl_vader_backing_directory"

rc=0
out=$(srun --mpi=pmix -N3 -n6 --ntasks-per-node=2 "$prog" 2>"$SLIPWAY_TEST_SCRATCH/stderr" | sort) || rc=$?
echo "$out"
cat "$SLIPWAY_TEST_SCRATCH/stderr" >&2

assert_not_contains "$(<"$SLIPWAY_TEST_SCRATCH/stderr")" "shared memory initialization" \
  "Open MPI's shared-memory set-up"
assert_eq 0 "$rc" "srun's exit status"
assert_eq 6 "$(grep -c ' sum=21 ok$' <<<"$out")" "ranks that saw sum 21"
assert_eq $'0\n1\n2\n3\n4\n5' "$(awk '{print $2}' <<<"$out" | sort -n)" "ranks"
assert_eq $'2 fn1\n2 fn2\n2 fn3' "$(awk '{print $6}' <<<"$out" | sort | uniq -c | awk '{print $1, $2}')" \
  "ranks per host"
