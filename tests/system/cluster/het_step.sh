#!/usr/bin/env bash
# Plain Slurm: a heterogeneous step `srun -n1 A : -n2 -N2 B` inside
# `salloc -N3` runs one task of A and two of B, on three distinct hosts, with
# global task ranks 0..2 across both components.
set -euo pipefail
source "$(dirname "$0")/../../lib/checks.sh"

out=$(salloc -N3 --quiet \
  srun -n1 sh -c 'echo "$SLURM_PROCID a $(hostname)"' : \
       -n2 -N2 sh -c 'echo "$SLURM_PROCID b $(hostname)"' | sort)
echo "$out"

assert_eq $'0\n1\n2' "$(cut -d' ' -f1 <<<"$out")" "global ranks of the het step"
assert_eq $'a\nb\nb' "$(cut -d' ' -f2 <<<"$out" | sort)" "tasks per component"
assert_eq $'fn1\nfn2\nfn3' "$(cut -d' ' -f3 <<<"$out" | sort)" "hosts of the het step (distinct)"
