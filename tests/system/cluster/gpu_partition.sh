#!/usr/bin/env bash
# The `gpu` partition: hosts with two (fake) GPUs each, bound by Slurm like
# real ones; the `cpu` partition is the default and has none.
set -euo pipefail
source "$(dirname "$0")/../../lib/checks.sh"

out=$(srun -p gpu -N2 --gpus-per-node=2 sh -c 'echo "$(hostname) $CUDA_VISIBLE_DEVICES"' | sort)
assert_eq $'fn4 0,1\nfn5 0,1' "$out" "GPUs bound on the gpu partition"

out=$(srun -p gpu -n1 --gpus=1 sh -c 'echo "$CUDA_VISIBLE_DEVICES"')
assert_eq 0 "$out" "one GPU"

if err=$(srun -p cpu -n1 --gpus=1 true 2>&1); then
  fail "a GPU request on the cpu partition was accepted"
fi
assert_contains "$err" "Requested node configuration is not available" "GPU request on cpu"
