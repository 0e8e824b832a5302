#!/usr/bin/env bash
# Logs have a size bound: with SLIPWAY_LOG_LIMIT=100K, a task printing 1 MB
# keeps its newest output in NODE.REPLICA.log and the part before in
# NODE.REPLICA.log.1, neither larger than the limit; the terminal got
# every line.
source "$(dirname "$0")/lib.sh"
program=$(topology log_limit)
SLIPWAY_LOG_LIMIT=100K run_slipway "$WORK/out" run "$program" >/dev/null
expect_status 0
logs="$SLIPWAY_RUN_ROOT/latest/logs"
ls -l "$logs"
for task in big.0 grouped.0; do
  node=${task%.0}
  for f in "$logs/$task.log" "$logs/$task.log.1"; do
    [ -e "$f" ] || fail "missing $f"
    size=$(stat -c %s "$f")
    [ "$size" -le 102400 ] || fail "$f has $size bytes, more than the limit of 100K"
  done
  expect_line "$logs/$task.log" "^last line of $node$"
  expect_line "$logs/$task.log" "^=== slipway: $task log continued: the earlier part is in $task\.log\.1 ===$"
  [ "$(grep -c "^$task: ${node:0:1}\{99\}$" "$WORK/out")" -eq 10000 ] || fail "the terminal did not get all of $task's lines"
done
echo PASS
