#!/usr/bin/env bash
# One agent running the replicas of a shared Slurm step (slipway-exec
# --node NODE --replicas LIST, docs/slurm.md): each replica is a unit of
# its own, so one that fails leaves its step-mates running to their end;
# the agent exits with the first failure's code. Bad uses exit 2. The
# agent runs here against a standalone rendezvous (`slipway rendezvous`),
# as it does under Slurm against the controller's.
source "$(dirname "$0")/lib.sh"
: "${SLIPWAY_EXEC:?SLIPWAY_EXEC must point at slipway-exec}"

program "$WORK/reps.toml" reps r \
  'if [ $SLIPWAY_REPLICA = 1 ]; then exit 3; fi; sleep 1; echo replica $SLIPWAY_REPLICA done' \
  "replicas = 4"
"$SLIPWAY" plan --json "$WORK/reps.toml" >"$WORK/plan.json" 2>/dev/null

"$SLIPWAY" rendezvous --token-out "$WORK/token" --declare r=4 >"$WORK/rdzv" 2>"$WORK/rdzv.err" &
BACKGROUND_PIDS+=($!)
wait_until 30 grep -q '^SLIPWAY_RDZV=' "$WORK/rdzv"
export "$(grep '^SLIPWAY_RDZV=' "$WORK/rdzv")"
SLIPWAY_TOKEN=$(cat "$WORK/token")
export SLIPWAY_TOKEN

run_logged "$WORK/out" timeout 60 "$SLIPWAY_EXEC" --plan "$WORK/plan.json" --node r --replicas 0-3
expect_status 3
for r in 0 2 3; do expect_line "$WORK/out" "^r\.$r: replica $r done$"; done
expect_no_line "$WORK/out" "replica 1 done"

run_logged "$WORK/out" "$SLIPWAY_EXEC" --plan "$WORK/plan.json" --replicas 0-3
expect_status 2
expect_line "$WORK/out" "--replicas requires --node"
run_logged "$WORK/out" "$SLIPWAY_EXEC" --plan "$WORK/plan.json" --node r --replicas 2-x
expect_status 2
expect_line "$WORK/out" "slipway-exec: --replicas 2-x: not a list of replicas \(like 0-2,5\)"
echo PASS
