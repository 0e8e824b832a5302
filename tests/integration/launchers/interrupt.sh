#!/usr/bin/env bash
# SIGINT (Ctrl-C) and SIGTERM of `slipway run` stop every task in order and
# exit 128 + signal, leaving nothing behind.
source "$(dirname "$0")/lib.sh"
for sig in INT TERM; do
  "$SLIPWAY" run --grace 3 "$(topology sleepers)" >"$WORK/out" 2>&1 &
  launcher=$!
  BACKGROUND_PIDS+=("$launcher")
  wait_until 60 bash -c "[ \$(pgrep -c -f '$MARKER') -ge 6 ]"
  kill -"$sig" "$launcher"
  set +e
  timeout 30 tail --pid="$launcher" -f /dev/null
  wait "$launcher"
  status=$?
  set -e
  cat "$WORK/out"
  want=$((128 + $(kill -l "$sig")))
  expect_status "$want"
  expect_line "$WORK/out" "received SIG$sig, stopping the program"
  wait_until 10 no_survivors
done
echo PASS
