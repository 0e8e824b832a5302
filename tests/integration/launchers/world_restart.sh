#!/usr/bin/env bash
# A failed rank of a torch world takes its world down at once and the whole
# world restarts as the next epoch: rank 1 dies while ranks 0 and 2 block in
# a collective (gloo would wait 30 minutes); slipway stops them, starts all
# three again with SLIPWAY_EPOCH=1 (TORCHELASTIC_RESTART_COUNT too), a new
# attempt and a fresh master port, and the program succeeds. Both ways of
# running a task: the launcher's own loop, and slipway-exec.
source "$(dirname "$0")/lib.sh"
/usr/bin/python3 -c "import torch.distributed" || fail "python3-torch is not installed (scripts/setup.sh installs it)"
for inline in 1 0; do
  out="$WORK/out$inline"
  SLIPWAY_INLINE_TASKS=$inline run_slipway "$out" run "$(topology torch_world)"
  expect_status 0
  for r in 0 1 2; do
    expect_line "$out" "^trainer\.$r: rank $r epoch 0 attempt 0 port [0-9]+ formed$"
    expect_line "$out" "^trainer\.$r: rank $r epoch 1 attempt 1 port [0-9]+ formed$"
    expect_line "$out" "^trainer\.$r: rank $r epoch 1 trained$"
    expect_line "$out" "^slipway: restarting trainer\.$r \(attempt 1, epoch 1 of its world\)$"
  done
  # Usually trainer.1 is heard first; its peers may see the broken
  # connection and fail as fast.
  expect_line "$out" "^slipway: the world of trainer\.[012] \(exited with status [0-9]+\) restarts as epoch 1 \(1 of 2 restarts allowed by max_retries\)(; stopping trainer\.[0-2](, trainer\.[0-2])?)?$"
  expect_no_line "$out" "got past the collective"
  ports=$(grep -oE "rank 0 epoch [01] attempt [01] port [0-9]+" "$out" | awk '{print $NF}' | sort -u | wc -l)
  [ "$ports" -eq 2 ] || fail "rank 0's master port was reused across epochs"
  log=$(ls "$SLIPWAY_RUN_ROOT"/torch-world-*/logs/trainer.2.log | tail -1)
  grep -q "^=== slipway: trainer\.2 attempt 1 epoch 1 on " "$log" || fail "no epoch banner in $log"
  rm -rf "$SLIPWAY_RUN_ROOT"
done
echo PASS
