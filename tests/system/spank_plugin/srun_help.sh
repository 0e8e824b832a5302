#!/usr/bin/env bash
# The plugin is loaded by the cluster: `srun --help`, `sbatch --help` and
# `salloc --help` list --program=FILE under the plugins' options.
set -euo pipefail
source "$(dirname "$0")/../../lib/checks.sh"

for tool in srun sbatch salloc; do
  out=$("$tool" --help 2>&1)
  assert_contains "$out" "Options provided by plugins:" "$tool --help"
  assert_contains "$out" "--program=FILE" "$tool --help"
done
