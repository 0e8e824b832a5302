#!/usr/bin/env bash
# What `srun --program` refuses, each with a "slipway: " error that says
# what to do, and a failing exit status: a command, heterogeneous ':'
# components, a missing slipway executable, --program from the environment.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/../../lib/checks.sh"
export SLIPWAY_BIN=$here/record-argv.sh

expect_refusal() {  # expect_refusal TEXT CMD...
  local text=$1 err; shift
  if err=$("$@" 2>&1); then fail "accepted: $* -> $err"; fi
  assert_contains "$err" "$text" "$*"
  assert_not_contains "$err" "arg=[launch]" "$* ran slipway"
}

expect_refusal "slipway: srun --program=FILE runs the commands of the topology's nodes, so it takes no command: remove 'hostname'" \
  srun -N2 --program=topo.toml hostname
expect_refusal "slipway: --program cannot be combined with ':'" \
  srun -n1 --program=topo.toml : -n1 hostname
expect_refusal "slipway: cannot run /nonexistent/slipway" \
  env SLIPWAY_BIN=/nonexistent/slipway srun --program=topo.toml
expect_refusal "slipway: --program must be given on the srun command line" \
  env SLURM_SPANK__SLURM_SPANK_OPTION_slipway_program=topo.toml srun -n1 true
