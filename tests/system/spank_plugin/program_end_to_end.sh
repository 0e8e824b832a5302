#!/usr/bin/env bash
# `srun|sbatch|salloc [opts] --program=FILE` end to end on the cluster: the
# plugin hands over to this build's slipway (plugstack slipway_bin=), which
# runs the program as job steps; every replica runs once on a cluster host
# and says so, and the client exits 0.
#   program_end_to_end.sh srun|sbatch|salloc
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/../../lib/checks.sh"
tool=$1
unset SLIPWAY_BIN
export SLIPWAY_RUN_ROOT=$PWD/runs
cp "$here/hello.toml" hello.toml

case $tool in
  srun) out=$(srun -N3 --program=hello.toml 2>&1) ;;
  salloc) out=$(salloc -N3 --program=hello.toml 2>&1) ;;
  sbatch)
    sbatch --wait --quiet -N3 --output="$PWD/job.out" --program=hello.toml
    out=$(cat job.out) ;;
esac
echo "$out"

hellos=$(grep -E '^greeter\.[0-2]: hello from fn[1-3] replica [0-2] of 3$' <<<"$out" | sort)
assert_eq 3 "$(grep -c . <<<"$hellos")" "replicas that said hello"
for r in 0 1 2; do
  assert_contains "$hellos" "greeter.$r: hello from" "replica $r"
  line=$(grep "^greeter.$r:" <<<"$hellos")
  assert_contains "$line" "replica $r of 3" "replica $r's own SLIPWAY_REPLICA"
done
assert_contains "$out" "slipway: program 'hello' finished" "the controller's verdict"
