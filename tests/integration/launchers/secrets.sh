#!/usr/bin/env bash
# The program's secret (SLIPWAY_TOKEN) stays with its user: the run root
# slipway makes and every run directory are 0700, every file in them 0600
# (a task that prints its environment puts the token in its log); a
# launcher or agent that crashes leaves no core dump (the task keeps the
# core limit it was given); `slipway rendezvous` refuses a --token-file
# others can read, and a --token-out that is a symbolic link.
source "$(dirname "$0")/lib.sh"
program=$(topology secrets)
mkdir "$WORK/cwd"
cd "$WORK/cwd"
ulimit -c unlimited
mode() { stat -c %a "$1"; }

# 1. Modes.
run_slipway "$WORK/out" run "$program"
expect_status 0
run=$(readlink -f "$SLIPWAY_RUN_ROOT/latest")
[ "$(mode "$SLIPWAY_RUN_ROOT")" = 700 ] || fail "run root $SLIPWAY_RUN_ROOT is $(mode "$SLIPWAY_RUN_ROOT")"
for d in "$run" "$run/logs"; do
  [ "$(mode "$d")" = 700 ] || fail "$d is $(mode "$d"), expected 700"
done
expect_line "$run/logs/printer.0.log" "^SLIPWAY_TOKEN="
expect_line "$run/logs/grouped.0.log" "^SLIPWAY_TOKEN="
for f in "$run"/* "$run"/logs/*; do
  [ -d "$f" ] && continue
  [ "$(mode "$f")" = 600 ] || fail "$f is $(mode "$f"), expected 600"
done
echo "1: modes 0700/0600"

# 2. No core dump of a crashing launcher or agent; the task's limit is kept.
crashing=$(topology crashing)
started() { [ "$(grep -c '^waiting\.0: core ' "$WORK/out2")" -ge "$1" ]; }
gone_pid() { ! kill -0 "$1" 2>/dev/null; }
"$SLIPWAY" run "$crashing" --run-root "$WORK/runs2" >"$WORK/out2" 2>&1 &
guard=$!
BACKGROUND_PIDS+=("$guard")
wait_until 60 started 1
grep -q '^waiting\.0: core unlimited$' "$WORK/out2" || fail "the task did not keep its core limit: $(grep core "$WORK/out2")"
agent=$(descendants "$guard" slipway-exec)
[ "$(echo "$agent" | wc -w)" -eq 1 ] || fail "expected one agent under $guard: $agent"
kill -SEGV "$agent"
wait_until 30 gone_pid "$agent"
wait_until 60 started 2  # the pair's retry
launcher=$(descendants "$guard" slipway)
[ "$(echo "$launcher" | wc -w)" -eq 1 ] || fail "expected one launcher under $guard: $launcher"
kill -SEGV "$launcher"
set +e
wait "$guard"
set -e
cat "$WORK/out2"
ls -la "$WORK/cwd"
[ -z "$(ls -A "$WORK/cwd")" ] || fail "a core dump was left: $(ls -A "$WORK/cwd")"
wait_until 30 no_survivors
echo "2: no core dumps"

# 3. The rendezvous's secret files.
echo "not-a-secret-anyone-may-read" >"$WORK/token"
chmod 644 "$WORK/token"
run_logged "$WORK/rdzv1" timeout 20 "$SLIPWAY" rendezvous --token-file "$WORK/token"
expect_status 2
expect_line "$WORK/rdzv1" "$WORK/token: the secret file can be read or written by other users \(mode 644\); run chmod 600"
ln -s "$WORK/target" "$WORK/link"
run_logged "$WORK/rdzv2" timeout 20 "$SLIPWAY" rendezvous --token-out "$WORK/link"
expect_status 2
expect_line "$WORK/rdzv2" "$WORK/link.*symbolic link"
[ ! -e "$WORK/target" ] || fail "--token-out followed the symbolic link"
echo "3: secret files"
echo PASS
