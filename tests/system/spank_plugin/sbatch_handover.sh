#!/usr/bin/env bash
# `sbatch [opts] --program=FILE` execs `slipway sbatch --sbatch-arg=OPT...
# FILE` before sbatch reads a script (here stdin is a FIFO that never
# delivers EOF: sbatch would wait on it forever); a #SBATCH --program line is
# refused.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/../../lib/checks.sh"
export SLIPWAY_BIN=$here/record-argv.sh

mkfifo never-eof
exec 3<>never-eof
out=$(timeout 20 sbatch -N2 -t 5 --program=topo.toml --requeue <&3)
exec 3<&-
echo "$out"
assert_eq "arg=[sbatch]
arg=[--sbatch-arg=-N2]
arg=[--sbatch-arg=-t]
arg=[--sbatch-arg=5]
arg=[--sbatch-arg=--requeue]
arg=[topo.toml]" "$(grep '^arg=' <<<"$out")" "argv of the hand-over"

printf '#!/bin/sh\n#SBATCH --program=topo.toml\nhostname\n' >job.sh
if err=$(sbatch job.sh 2>&1); then fail "#SBATCH --program was accepted: $err"; fi
assert_contains "$err" "slipway: --program must be given on the sbatch command line" "#SBATCH --program"

if err=$(sbatch --program=topo.toml job.sh 2>&1); then fail "a script with --program was accepted"; fi
assert_contains "$err" "takes no script: remove 'job.sh'" "sbatch --program with a script"
