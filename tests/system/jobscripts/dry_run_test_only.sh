#!/usr/bin/env bash
# `slipway sbatch --dry-run` writes a heterogeneous batch script that the
# real cluster accepts (`sbatch --test-only`), as it does the DDP template
# (2 hosts x 2 GPUs: the test cluster's gpu partition) once its per-task CPUs
# and memory are scaled down to the test hosts from sbatch's command line.
#   dry_run_test_only.sh SLIPWAY
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh"
slipway=$1

"$slipway" sbatch --dry-run "$here/two-parts.toml" >job.sh
assert_eq 1 "$(grep -c '^#SBATCH hetjob$' job.sh)" "components of the job"
assert_contains "$(cat job.sh)" "'$here/two-parts.toml'" "the topology, by absolute path"
out=$(sbatch --test-only job.sh 2>&1) || fail "sbatch --test-only rejected the script: $out"
assert_contains "$out" "to start at" "sbatch --test-only of the generated script"

out=$(sbatch --test-only --cpus-per-task=2 --mem-per-cpu=500M \
  "$here/../../../jobscripts/templates/ddp-multinode.sbatch" 2>&1) ||
  fail "sbatch --test-only rejected the DDP template: $out"
assert_contains "$out" "to start at" "sbatch --test-only of the DDP template"

if err=$("$slipway" sbatch --dry-run "$here/no-such.toml" 2>&1); then
  fail "a missing topology was accepted"
fi
assert_contains "$err" "no-such.toml" "error for a missing topology"
