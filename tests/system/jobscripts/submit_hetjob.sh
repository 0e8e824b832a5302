#!/usr/bin/env bash
# `slipway sbatch FILE` submits the program's heterogeneous job: sbatch's
# "Submitted batch job N", component 0 on partition gpu with one GPU,
# component 1 on partition cpu with 3 tasks, sbatch arguments applied to
# every component.
#   submit_hetjob.sh SLIPWAY
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh"
slipway=$1

out=$("$slipway" sbatch "$here/two-parts.toml" --sbatch-arg=--hold --sbatch-arg=--time=7)
job=$(job_id_of "$out")
trap 'scancel "$job" 2>/dev/null || true' EXIT

assert_eq twoparts "$(job_field "$job" 0 JobName)" "job name"
assert_eq gpu "$(job_field "$job" 0 Partition)" "partition of component 0"
assert_contains "$(job_field "$job" 0 TresPerTask)" "gpu:1" "GPUs of component 0"
assert_eq cpu "$(job_field "$job" 1 Partition)" "partition of component 1"
assert_eq 3 "$(job_field "$job" 1 NumTasks)" "tasks of component 1"
assert_eq 00:07:00 "$(job_field "$job" 0 TimeLimit)" "--time on component 0"
assert_eq 00:07:00 "$(job_field "$job" 1 TimeLimit)" "--time on component 1"
