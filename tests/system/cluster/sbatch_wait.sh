#!/usr/bin/env bash
# Plain Slurm batch: a script submitted with `sbatch --wait` runs on the first
# host, its srun reaches all three, and its output lands on the shared file
# system.
set -euo pipefail
source "$(dirname "$0")/../../lib/checks.sh"

cat >job.sh <<'JOB'
#!/bin/sh
#SBATCH -N3
#SBATCH --time=2
echo "batch on $(hostname)"
srun hostname | sort
JOB
sbatch --wait --quiet --output="$PWD/job.out" job.sh
assert_eq $'batch on fn1\nfn1\nfn2\nfn3' "$(cat job.out)" "batch job output"
