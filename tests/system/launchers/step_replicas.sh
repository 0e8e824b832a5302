#!/usr/bin/env bash
# The replicas of a node that share a host start as one job step (one srun,
# one Slurm task: an agent running them all, slipway-exec --replicas), are
# supervised one by one through the rendezvous: a replica that fails while
# its step-mates run is resubmitted alone, and the program completes.
source "$(dirname "$0")/lib.sh"
run_logged out "$SLIPWAY" launch --srun-arg=-N2 --srun-arg=-n6 --srun-arg=-pcpu "$(topology replicas)"
[ "$status" -eq 0 ] || fail "slipway launch exited $status"
for r in 0 1 2 3 4 5; do
  expect_line out "^r\.$r: replica $r of 6 attempt 0 on fn[1-3] step [0-9]+\.[0-9]+ of 1 slurm tasks$"
done
# First attempts: one step per host, every replica of a host in it.
steps=$(sed -n 's/^r\.[0-9]: replica [0-9] of 6 attempt 0 on \(fn[0-9]\) step \([0-9.]*\) of.*$/\1 \2/p' out | sort -u)
hosts=$(echo "$steps" | cut -d' ' -f1 | sort -u | wc -l)
[ "$(echo "$steps" | wc -l)" -eq "$hosts" ] || fail "expected one step per host, got: $steps"
[ "$hosts" -lt 6 ] || fail "every replica ran in a step of its own: $steps"
expect_line out "r\.2 exited with status 3"
expect_line out "restarting r\.2 \(attempt 1\)"
expect_line out "^r\.2: replica 2 of 6 attempt 1 on fn[1-3] step [0-9]+\.[0-9]+ of 1 slurm tasks$"
if grep -Eq "restarting r\.[013-5]" out; then fail "a replica other than r.2 was restarted"; fi
expect_line out "program 'replicas' finished"
echo PASS
