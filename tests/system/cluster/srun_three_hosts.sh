#!/usr/bin/env bash
# Plain Slurm: `srun -N3 hostname` runs once on each of three distinct hosts,
# each with its own hostname (separate UTS namespaces).
set -euo pipefail
source "$(dirname "$0")/../../lib/checks.sh"

out=$(srun -N3 hostname | sort)
assert_eq $'fn1\nfn2\nfn3' "$out" "srun -N3 hostname"
