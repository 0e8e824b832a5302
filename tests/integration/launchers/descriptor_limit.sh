#!/usr/bin/env bash
# slipway run holds two output pipes per running task: with a soft limit of
# 256 open descriptors, 200 tasks running at once still start (it raises its
# own soft limit to the hard one), and each command sees the limit it was
# started with (256), not the raised one.
source "$(dirname "$0")/lib.sh"
program=$(topology many)
sed -i 's|echo w $SLIPWAY_REPLICA|echo w $SLIPWAY_REPLICA limit $(ulimit -Sn)|' "$program"
[ "$(ulimit -Hn)" = unlimited ] || [ "$(ulimit -Hn)" -ge 1024 ] || { echo "hard limit too low to test"; exit 77; }
status=0
(ulimit -Sn 256 && exec timeout 120 "$SLIPWAY" run "$program") >"$WORK/out" 2>&1 || status=$?
tail -3 "$WORK/out"
expect_status 0
[ "$(grep -c '^w\.[0-9]*: w [0-9]* limit 256$' "$WORK/out")" -eq 200 ] || fail "expected 200 tasks to report limit 256"
echo PASS
