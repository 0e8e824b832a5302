#!/usr/bin/env bash
# Plain Slurm + PMIx: an Open MPI allreduce over 6 ranks on 3 hosts through
# `srun --mpi=pmix` (Slurm's own PMIx server) sums 1..6 on every rank, with
# its Open MPI files out of the reach of another test cluster's jobs.
#   mpi_allreduce.sh PATH_OF_slipway_mpi_allreduce
set -euo pipefail
source "$(dirname "$0")/../../lib/checks.sh"
prog=$1

# Why this run keeps Open MPI's files in directories of its own: every test
# cluster on this machine has hosts fn1..fnN and numbers its jobs from 1, and
# all of them share /tmp and /dev/shm. Open MPI names its files after the
# host, the uid and a hash of the PMIx namespace 'slurm.pmix.JOB.STEP': a
# rank's shared-memory segment is /dev/shm/vader_segment.fn1.0.36a24d59.0 in
# every cluster's first job, its session directory /tmp/ompi.fn1.0/jf.N. Two
# clusters running that job at once (two test runs, or a helper's beside the
# lead's) use the same files, and the first to finish unlinks them: the other
# one's local peer then fails to attach, "A system call failed during shared
# memory initialization ... open(2) No such file or directory", and may
# segfault on the segment it did not map (the flake of issue 27 item 14).
export OMPI_MCA_orte_tmpdir_base=$SLIPWAY_TEST_SCRATCH/ompi
export OMPI_MCA_btl_vader_backing_directory=$SLIPWAY_TEST_SCRATCH/ompi-shm
mkdir -p "$OMPI_MCA_orte_tmpdir_base" "$OMPI_MCA_btl_vader_backing_directory"
# Not the whole answer: a neighbour that unlinked vader_segment.fn* files in
# /dev/shm during the run still broke it in 2 of 3 runs with these set, so
# some of this job's segments still land there (issue 27 item 14, open).

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
