#!/usr/bin/env bash
# On a retry, every variable derived from the attempt (torch's
# TORCHELASTIC_RESTART_COUNT) equals SLIPWAY_ATTEMPT, whether the launcher
# runs the task itself or through slipway-exec (SLIPWAY_INLINE_TASKS=0).
source "$(dirname "$0")/lib.sh"
for inline in 1 0; do
  SLIPWAY_INLINE_TASKS=$inline run_slipway "$WORK/out$inline" run "$(topology attempt_env)"
  expect_status 0
  expect_line "$WORK/out$inline" "^trainer.0: attempt=0 restart=0$"
  expect_line "$WORK/out$inline" "^trainer.0: attempt=1 restart=1$"
done
echo PASS
