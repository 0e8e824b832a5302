#!/usr/bin/env bash
# Issue 11 item 6: `slipway runs --prune` applies the retention rule: keep
# the --keep newest runs of each program and none older than --max-age,
# never a running run, nor a lost one whose files still change; the latest
# links follow; directories that are not runs are left alone.
source "$(dirname "$0")/lib.sh"

program "$WORK/quick.toml" quick q "echo q"
program "$WORK/long.toml" long sleeper "sleep 60"

for _ in 1 2 3; do
  run_slipway "$WORK/out" run "$WORK/quick.toml"
  expect_status 0
  sleep 1.1  # runs are told apart by their start second
done
newest=$(cd "$SLIPWAY_RUN_ROOT" && ls -d quick-* | sort | tail -1)

root=$SLIPWAY_RUN_ROOT
# An old finished run, an old lost run, and a lost run whose files changed
# just now (its launcher may live on a host we cannot see).
mkdir -p "$root/old-20200101-000000-1/logs" "$root/ghost-20200101-000000-1/logs" \
  "$root/busy-20200101-000000-1/logs" "$root/notes"
echo 0 >"$root/old-20200101-000000-1/exit"
printf 'endpoint 127.0.0.1:1\ntoken x\npid 1\n' >"$root/ghost-20200101-000000-1/rendezvous"
printf 'endpoint 127.0.0.1:1\ntoken x\npid 1\n' >"$root/busy-20200101-000000-1/rendezvous"
touch -d 2020-01-02 "$root/old-20200101-000000-1" "$root/old-20200101-000000-1"/* "$root/old-20200101-000000-1/logs" \
  "$root/ghost-20200101-000000-1" "$root/ghost-20200101-000000-1"/* "$root/ghost-20200101-000000-1/logs"
echo still writing >"$root/busy-20200101-000000-1/logs/b.0.log"

"$SLIPWAY" run "$WORK/long.toml" >"$WORK/long.out" 2>&1 &
BACKGROUND_PIDS+=($!)
long_pid=$!
started long "$long_pid" "$WORK/long.out"

run_slipway "$WORK/runs.out" runs
expect_line "$WORK/runs.out" '^old-20200101-000000-1 +old +2020-01-01T00:00:00 +0 +done +0 +-$'
expect_line "$WORK/runs.out" '^ghost-20200101-000000-1 +ghost +[^ ]+ +0 +lost +- +-$'
expect_line "$WORK/runs.out" '^long-[^ ]+ +long +[^ ]+ +0 +running +- +-$'

run_slipway "$WORK/dry.out" runs --prune --keep 1 --dry-run
expect_status 0
[ "$(grep -c '^would remove' "$WORK/dry.out")" -eq 4 ] || fail "expected 4 runs to prune"
[ -d "$root/old-20200101-000000-1" ] || fail "--dry-run removed a run"

run_slipway "$WORK/prune.out" runs --prune --keep 1
expect_status 0
expect_line "$WORK/prune.out" '^removed .*/old-20200101-000000-1 \(done\)$'
expect_line "$WORK/prune.out" '^removed .*/ghost-20200101-000000-1 \(lost\)$'
[ "$(grep -c '^removed .*/quick-' "$WORK/prune.out")" -eq 2 ] || fail "expected the 2 older quick runs removed"
[ -d "$root/$newest" ] || fail "the newest quick run was removed"
[ -d "$root/busy-20200101-000000-1" ] || fail "a lost run whose files just changed was removed"
[ -d "$root/notes" ] || fail "a directory that is not a run was removed"
[ "$(readlink "$root/quick.latest")" = "$newest" ] || fail "quick.latest does not point at $newest"

# Even --keep 0 --max-age 0s keeps a running run.
run_slipway "$WORK/prune.out" runs --prune --keep 0 --max-age 0s
expect_status 0
[ -d "$(readlink -f "$root/long.latest")" ] || fail "a running run was removed"
[ ! -e "$root/$newest" ] || fail "--keep 0 kept $newest"
[ ! -L "$root/quick.latest" ] || fail "quick.latest left dangling"

run_slipway "$WORK/out" stop long
wait "$long_pid" || true

run_slipway "$WORK/out" runs --keep 3
expect_status 2
expect_line "$WORK/out" 'requires --prune'
run_slipway "$WORK/out" runs --prune --max-age 3weeks
expect_status 2
expect_line "$WORK/out" "--max-age '3weeks' is not an age"
echo PASS
