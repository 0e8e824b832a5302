#!/usr/bin/env bash
# Issue 11 item 16: when a task's exec still fails with E2BIG (here: a valid
# topology's 180 kB of env under `ulimit -s 256`, whose exec limit is 128 KiB),
# the error names the largest variable and the sizes, not only "Argument list
# too long".
source "$(dirname "$0")/lib.sh"

value=$(head -c 60000 /dev/zero | tr '\0' v)
program "$WORK/big.toml" big a true "[node.a.env]" "V0 = \"$value\"" "V1 = \"$value\"" "V2 = \"$value\""

run_logged "$WORK/out" bash -c 'ulimit -s 256 && exec timeout 60 "$0" run "$1"' "$SLIPWAY" "$WORK/big.toml"
expect_status 1
expect_line "$WORK/out" "a\.0: slipway: cannot run 'sh' \(arguments and environment take [0-9]+ bytes, over this system's limit of [0-9]+ \(ulimit -s / 4\); the largest variable is V[0-2], 60004 bytes\): Argument list too long"
echo PASS
