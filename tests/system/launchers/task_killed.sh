#!/usr/bin/env bash
# A task killed mid-run (SIGKILL to its command) is resubmitted as a new
# step and the program completes.
source "$(dirname "$0")/lib.sh"
"$SLIPWAY" launch --srun-arg=-N2 --srun-arg=-pcpu "$(topology killed)" >out 2>&1 &
launcher=$!
trap 'kill_launcher "$launcher"; pkill -9 -f "$MARKER" || true' EXIT
# Only the exec'd sleep ("MARKER 1000"): the bash before its exec, and any
# process whose arguments carry the command text, name the marker too.
sleeper="^$MARKER 1000\$"
wait_until 60 pgrep -f "$sleeper"
pkill -9 -f "$sleeper"
wait_for_launcher "$launcher" out
[ "$status" -eq 0 ] || fail "slipway launch exited $status"
expect_line out "worker.0 exited with status 137"
expect_line out "restarting worker.0 \(attempt 1\)"
expect_line out "^worker.0: recovered on attempt 1$"
echo PASS
