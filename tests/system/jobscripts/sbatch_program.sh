#!/usr/bin/env bash
# `sbatch [opts] --program=FILE` end to end: the SPANK plugin execs the
# build's `slipway sbatch`, which submits the program's batch script; the
# user's sbatch options reach every component; the script runs this slipway
# on the topology's absolute path.
#   sbatch_program.sh SLIPWAY
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh"
slipway=$1
unset SLIPWAY_BIN

cp "$here/two-parts.toml" program.toml
out=$(sbatch --hold -t 9 --program=program.toml)
job=$(job_id_of "$out")
trap 'scancel "$job" 2>/dev/null || true' EXIT

assert_eq twoparts "$(job_field "$job" 0 JobName)" "job name"
assert_eq 00:09:00 "$(job_field "$job" 1 TimeLimit)" "sbatch -t on component 1"
script=$(scontrol write batch_script "$job" -)
assert_contains "$script" "slipway='$(readlink -f "$slipway")'" "slipway run by the script"
assert_contains "$script" "topology='$PWD/program.toml'" "topology run by the script"
assert_not_contains "$(scontrol show job "$job" | tr ' ' '\n' | grep -i '^Environment\|SLIPWAY_SPANK_REEXEC' || true)" \
  "SLIPWAY_SPANK_REEXEC" "the re-exec guard left in the job"
