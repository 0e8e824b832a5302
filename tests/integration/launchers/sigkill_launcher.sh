#!/usr/bin/env bash
# SIGKILL of `slipway run` leaves no process of the program alive: not the
# commands, not their children, not an escapee in its own session. Both
# ways: SIGKILL of the process the user started (the guard: the launcher
# hears SIGTERM and stops the program) and SIGKILL of the launcher itself
# (its orphans are reparented to the guard, which ends them).
source "$(dirname "$0")/lib.sh"
program=$(topology sleepers)

# The launcher is the guard's grandchild (under the keeper); the commands
# are the launcher's children.
launcher_of() { pgrep -P "$(pgrep -P "$1" -x run-keeper)" -x slipway; }
all_started() { [ "$(pgrep -c -f "$MARKER")" -ge 6 ]; }
gone() { ! kill -0 "$1" 2>/dev/null; }

# 1. SIGKILL of `slipway run` (the guard).
"$SLIPWAY" run "$program" >"$WORK/out1" 2>&1 &
guard=$!
BACKGROUND_PIDS+=("$guard")
# 2 plain + forker + its child + escaper + its setsid grandchild.
wait_until 60 all_started
pgrep -a -f "$MARKER"
launcher=$(launcher_of "$guard") || fail "slipway run ($guard) has no launcher child"
[ "$(pgrep -c -P "$launcher" -f "$MARKER")" -ge 4 ] || fail "the commands are not the launcher's children"
kill -9 "$guard"
wait_until 30 no_survivors
wait_until 30 gone "$launcher"
echo "1: SIGKILL of slipway run: nothing left"

# 2. SIGKILL of the launcher: the keeper ends what it left, and slipway run
# exits 137.
"$SLIPWAY" run "$program" >"$WORK/out2" 2>&1 &
guard=$!
BACKGROUND_PIDS+=("$guard")
wait_until 60 all_started
launcher=$(launcher_of "$guard") || fail "slipway run ($guard) has no launcher child"
kill -9 "$launcher"
wait_until 30 no_survivors
set +e
wait "$guard"
status=$?
set -e
expect_status 137
echo "2: SIGKILL of the launcher: nothing left, slipway run exited 137"
echo PASS
