#!/usr/bin/env bash
# SIGKILL of the slipway processes of a run at once, as `pkill -9 slipway`
# or the OOM killer does: the guard and the launcher, then the guard, the
# launcher and the task agents, killed by the pids this test found under
# the guard it started, never by name. Nothing the program started
# survives: not the commands, not their children, not a grandchild that
# escaped into its own session and ignores SIGTERM.
source "$(dirname "$0")/lib.sh"
program=$(topology guarded)

# plain, forker + child, escaper + setsid, agent-forker + child + setsid, partner.
all_started() { [ "$(pgrep -c -f "$MARKER")" -ge 9 ]; }

for scenario in "guard and launcher" "guard, launcher and agents"; do
  "$SLIPWAY" run "$program" >"$WORK/out" 2>&1 &
  guard=$!
  BACKGROUND_PIDS+=("$guard")
  wait_until 60 all_started
  launcher=$(descendants "$guard" slipway)
  agents=$(descendants "$guard" slipway-exec)
  [ "$(echo "$launcher" | wc -w)" -eq 1 ] || fail "expected one launcher under slipway run ($guard): $launcher"
  [ "$(echo "$agents" | wc -w)" -eq 1 ] || fail "expected one slipway-exec under slipway run ($guard): $agents"
  if [ "$scenario" = "guard and launcher" ]; then
    kill -9 "$guard" "$launcher"
  else
    kill -9 "$guard" "$launcher" "$agents"
  fi
  wait_until 30 no_survivors
  echo "SIGKILL of the $scenario: nothing left"
done
echo PASS
