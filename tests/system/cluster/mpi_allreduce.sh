#!/usr/bin/env bash
# Plain Slurm + PMIx: an Open MPI allreduce over 6 ranks on 3 hosts through
# `srun --mpi=pmix` (Slurm's own PMIx server) sums 1..6 on every rank.
#   mpi_allreduce.sh PATH_OF_slipway_mpi_allreduce
set -euo pipefail
source "$(dirname "$0")/../../lib/checks.sh"
prog=$1

# Open MPI's session directory (and the shared-memory files in it) is
# /tmp/ompi.HOST.UID/jf.N, with N hashed from the PMIx namespace, which is the
# same 'slurm.pmix.JOB.0' in every fresh test cluster: a run's ranks then met
# another run's leftovers there and failed at init (open(2) ENOENT, then a
# segfault). This run's own directory, on the file system every host shares.
export OMPI_MCA_orte_tmpdir_base=$SLIPWAY_TEST_SCRATCH/ompi
mkdir -p "$OMPI_MCA_orte_tmpdir_base"
# The same for the shared-memory segments, which Open MPI keeps in /dev/shm
# by default, outside the session directory: a run failed once more at init
# with the same open(2) ENOENT in shared-memory set-up, its session directory
# already private. slipway's own MPI tasks get both directories of their own
# (pmix_server/src/mpi_task_hooks.cpp); this plain-Slurm run now does too.
export OMPI_MCA_btl_vader_backing_directory=$SLIPWAY_TEST_SCRATCH/ompi-shm
mkdir -p "$OMPI_MCA_btl_vader_backing_directory"

out=$(srun --mpi=pmix -N3 -n6 --ntasks-per-node=2 "$prog" | sort)
echo "$out"

assert_eq 6 "$(grep -c ' sum=21 ok$' <<<"$out")" "ranks that saw sum 21"
assert_eq $'0\n1\n2\n3\n4\n5' "$(awk '{print $2}' <<<"$out" | sort -n)" "ranks"
assert_eq $'2 fn1\n2 fn2\n2 fn3' "$(awk '{print $6}' <<<"$out" | sort | uniq -c | awk '{print $1, $2}')" \
  "ranks per host"
