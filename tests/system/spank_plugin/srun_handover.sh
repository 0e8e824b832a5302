#!/usr/bin/env bash
# `srun [opts] --program=FILE` execs `slipway launch --srun-arg=OPT... FILE`
# (SLIPWAY_BIN points the plugin at a recorder): every other srun word in
# order, signals unblocked, the guard set, the working directory kept.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/../../lib/checks.sh"

out=$(SLIPWAY_BIN="$here/record-argv.sh" srun -N 3 --mpi=pmix --program=topo.toml -l --comment "a b")
echo "$out"
assert_eq "arg=[launch]
arg=[--srun-arg=-N]
arg=[--srun-arg=3]
arg=[--srun-arg=--mpi=pmix]
arg=[--srun-arg=-l]
arg=[--srun-arg=--comment]
arg=[--srun-arg=a b]
arg=[topo.toml]" "$(grep '^arg=' <<<"$out")" "argv of the hand-over"
assert_contains "$out" "guard=1" "re-exec guard"
assert_contains "$out" "sigblk=0000000000000000" "blocked signals after the exec"
assert_contains "$out" "cwd=$PWD" "working directory"
assert_contains "$out" "job=" "no allocation made by srun before the hand-over"
assert_not_contains "$out" "job=1" "no allocation made by srun before the hand-over"

# Under the guard (inside a program slipway launched), --program is refused.
if err=$(SLIPWAY_SPANK_REEXEC=1 SLIPWAY_BIN="$here/record-argv.sh" srun --program=topo.toml 2>&1); then
  fail "nested --program was accepted: $err"
fi
assert_contains "$err" "slipway: --program inside a program that slipway launched" "guard"
