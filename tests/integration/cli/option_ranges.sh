#!/usr/bin/env bash
# Issue 11 item 20: durations and simulated hosts out of range are refused
# at once, with the valid range, before anything is planned or started.
source "$(dirname "$0")/lib.sh"

program "$WORK/t.toml" t a true

for command in run launch; do
  for bad in "--grace=-1" "--grace=nan" "--grace=inf" "--wire-timeout=0" "--wire-timeout=-5" "--wire-timeout=nan"; do
    run_slipway "$WORK/out" "$command" "$bad" "$WORK/t.toml"
    expect_status 2
    expect_line "$WORK/out" "^${bad%%=*}: must be a number of seconds (from 0 to 86400|more than 0 and at most 86400) \(got '${bad#*=}'\)"
  done
done

for command in run plan; do
  for bad in "--hosts=0:1 to 100000" "--hosts=1000000:1 to 100000" "--gpus-per-host=100000:0 to 1024" \
             "--cpus-per-host=0:1 to 65536"; do
    option=${bad%%:*}
    run_slipway "$WORK/out" "$command" "$option" "$WORK/t.toml"
    expect_status 2
    expect_line "$WORK/out" "^${option%%=*}: Value ${option#*=} not in range ${bad#*:}\$"
  done
  run_slipway "$WORK/out" "$command" --mem-per-host=12X "$WORK/t.toml"
  expect_status 2
  expect_line "$WORK/out" "^slipway $command: --mem-per-host \"12X\" not a size"
done

[ ! -e "$SLIPWAY_RUN_ROOT" ] || [ -z "$(ls -A "$SLIPWAY_RUN_ROOT")" ] ||
  fail "a refused command left a run directory: $(ls "$SLIPWAY_RUN_ROOT")"

# In range, the same options run.
run_slipway "$WORK/out" run --grace=0 --wire-timeout=0.5 --hosts=2 --gpus-per-host=0 --mem-per-host=512 "$WORK/t.toml"
expect_status 0
echo PASS
