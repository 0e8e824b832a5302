#!/usr/bin/env bash
# Remote context: in a step whose environment has SLIPWAY_PROGRAM and
# SLIPWAY_REPLICA_BASE, slurmstepd's plugin sets SLIPWAY_REPLICA = base +
# global task id for every task; other steps are left alone; a bad base
# fails the step with a "slipway: " error.
set -euo pipefail
source "$(dirname "$0")/../../lib/checks.sh"

out=$(SLIPWAY_PROGRAM=demo SLIPWAY_REPLICA_BASE=5 srun -N3 -n3 \
  sh -c 'echo "$(hostname) $SLIPWAY_REPLICA"' | sort)
assert_eq $'fn1 5\nfn2 6\nfn3 7' "$out" "replicas of a slipway step"

out=$(SLIPWAY_REPLICA_BASE=5 srun -n1 sh -c 'echo "[${SLIPWAY_REPLICA:-}]"')
assert_eq "[]" "$out" "a step that is not slipway's"

out=$(SLIPWAY_PROGRAM=demo SLIPWAY_REPLICA_BASE=5 SLIPWAY_REPLICA=2 srun -n1 printenv SLIPWAY_REPLICA)
assert_eq "2" "$out" "a replica the step set itself"

if err=$(SLIPWAY_PROGRAM=demo SLIPWAY_REPLICA_BASE=x srun -n1 true 2>&1); then
  fail "a bad SLIPWAY_REPLICA_BASE was accepted: $err"
fi
assert_contains "$err" "slipway: SLIPWAY_REPLICA_BASE='x' is not a replica index" "bad base"
