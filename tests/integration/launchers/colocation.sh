#!/usr/bin/env bash
# Nodes of one colocate group share a task: one agent runs both commands.
source "$(dirname "$0")/lib.sh"
run_slipway "$WORK/out" run "$(topology colocation)"
expect_status 0
for r in 0 1; do
  l=$(sed -n "s/^learner\.$r: agent=//p" "$WORK/out")
  p=$(sed -n "s/^replay\.$r: agent=//p" "$WORK/out")
  [ -n "$l" ] && [ "$l" = "$p" ] || fail "learner.$r (agent $l) and replay.$r (agent $p) differ"
done
a0=$(sed -n "s/^learner\.0: agent=//p" "$WORK/out")
a1=$(sed -n "s/^learner\.1: agent=//p" "$WORK/out")
[ "$a0" != "$a1" ] || fail "replicas 0 and 1 share an agent"
echo PASS
