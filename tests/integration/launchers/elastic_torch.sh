#!/usr/bin/env bash
# An elastic torch node (replicas = "2:4", grow = "manual") resized with
# `slipway scale` from another terminal: 2 -> 4 -> 2. Each resize stops the
# whole world at once and starts it again as the next epoch at the new size
# (WORLD_SIZE, ranks 0..N-1, a fresh master port, TORCHELASTIC_RESTART_COUNT
# = the epoch); with max_retries = 0, resizes cost no retry. Both ways of
# running a task: the launcher's own loop, and slipway-exec (--live).
source "$(dirname "$0")/lib.sh"
/usr/bin/python3 -c "import torch.distributed" || fail "python3-torch is not installed (scripts/setup.sh installs it)"

# steps OUT WORLD EPOCH RANK: whether RANK stepped at that size and epoch.
steps() { grep -qE "^trainer\.$4: rank $4 world $2 epoch $3 port [0-9]+ step [0-9]+$" "$1"; }
formed() {  # OUT WORLD EPOCH: every rank of that world stepped
  local r
  for ((r = 0; r < $2; r++)); do steps "$1" "$2" "$3" "$r" || return 1; done
}

for inline in 1 0; do
  out="$WORK/out$inline"
  SHOW_ON_FAILURE=$out
  rm -f "$WORK/done"
  SLIPWAY_INLINE_TASKS=$inline "$SLIPWAY" run "$(topology torch_elastic)" >"$out" 2>&1 &
  launcher=$!
  BACKGROUND_PIDS+=("$launcher")
  wait_until 120 formed "$out" 2 0
  "$SLIPWAY" scale trainer 4 >"$WORK/scale" 2>&1 || { cat "$WORK/scale" "$out"; fail "slipway scale failed"; }
  expect_line "$WORK/scale" '^trainer: 2 replicas now \(replicas = "2:4"\); asked for 4$'
  wait_until 120 formed "$out" 4 1
  "$SLIPWAY" status >"$WORK/status" 2>&1
  expect_line "$WORK/status" "^trainer +4 +2:4 +1 +0-3$"
  "$SLIPWAY" scale trainer 9 >/dev/null
  wait_until 60 grep -q "asked for 9 replicas of trainer: clamped to 4, its MAX" "$out"
  "$SLIPWAY" scale trainer 2 >/dev/null
  wait_until 120 formed "$out" 2 2
  touch "$WORK/done"
  wait_for_exit "$launcher"
  cat "$out"
  expect_status 0
  expect_line "$out" "^slipway: trainer grows from 2 to 4 replicas \(asked by slipway scale \([^)]*\)\): its world restarts as epoch 1 with 4 replica\(s\); stopping trainer\.0, trainer\.1$"
  expect_line "$out" "^slipway: trainer shrinks from 4 to 2 replicas \(asked by slipway scale \([^)]*\)\): its world restarts as epoch 2 with 2 replica\(s\); stopping trainer\.0, trainer\.1, trainer\.2, trainer\.3$"
  # Asking for 9 changed nothing (it already ran 4): no epoch 3.
  expect_no_line "$out" "epoch 3"
  expect_no_line "$out" "^trainer\.[23]: rank [23] world [0-9] epoch 2"
  expect_no_line "$out" "killed by signal|exited with status"
  ports=$(grep -oE "rank 0 world [0-9] epoch [0-2] port [0-9]+" "$out" | awk '{print $NF}' | sort -u | wc -l)
  [ "$ports" -eq 3 ] || fail "rank 0's master port was reused across epochs"
  log=$(ls "$SLIPWAY_RUN_ROOT"/torch-elastic-*/logs/trainer.3.log | tail -1)
  grep -q "^=== slipway: trainer\.3 attempt 0 epoch 1 on " "$log" || fail "no epoch banner in $log"
  wait_until 10 no_survivors
  rm -rf "$SLIPWAY_RUN_ROOT"
done
echo PASS
