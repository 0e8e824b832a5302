#!/usr/bin/env bash
# Plain Slurm + PMIx: a fence without data collection under `srun --mpi=pmix`
# is a barrier across hosts. One rank per host; the last one enters the fence
# 2 s late, and the others must not leave it before that rank has come.
#   pmix_fence_barrier.sh PATH_OF_slipway-pmix-probe
#
# Why: Open MPI's final barrier in MPI_Init is such a fence. Slurm 22.05's
# mpi/pmix runs it as a tree collective, and its tree (reverse_tree_info)
# makes every host a root without children when the step has no more hosts
# than TreeWidth (50): each host then completed the fence alone. Ranks on a
# fast host left MPI_Init and sent to a rank on a slow host that was still in
# the modex fence, before its PML had registered the BTL callbacks: a
# segfault at address (nil) in the TCP BTL, the flake of
# system:cluster:mpi_allreduce (issue 27 item 14). The test cluster now runs
# every fence as a ring (PMIxCollFence=ring, tests/cluster/lib/config.sh).
set -euo pipefail
source "$(dirname "$0")/../../lib/checks.sh"
probe=$1

late=$SLIPWAY_TEST_SCRATCH/late-rank-entered
rc=0
# shellcheck disable=SC2016 # expanded by each task's shell
out=$(srun --mpi=pmix -N3 -n3 --ntasks-per-node=1 bash -c '
  probe=$1 late=$2
  if [[ $SLURM_PROCID == 2 ]]; then
    sleep 2
    touch "$late"
    exec "$probe" fence-nodata
  fi
  "$probe" fence-nodata
  if [[ -e $late ]]; then
    echo "rank $SLURM_PROCID left the fence after the late rank came"
  else
    echo "rank $SLURM_PROCID left the fence BEFORE the late rank came"
  fi' fence "$probe" "$late" 2>"$SLIPWAY_TEST_SCRATCH/stderr" | sort) || rc=$?
echo "$out"
cat "$SLIPWAY_TEST_SCRATCH/stderr" >&2

assert_eq 0 "$rc" "srun's exit status"
assert_eq 3 "$(grep -ci 'fence-nodata success' <<<"$out")" "ranks whose fence succeeded"
assert_eq $'rank 0 left the fence after the late rank came\nrank 1 left the fence after the late rank came' \
  "$(grep '^rank ' <<<"$out")" "ranks that waited in the fence for the late one"
