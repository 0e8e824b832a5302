#!/usr/bin/env bash
# A reader of slipway run's output that stops reading (a pager, a stuck
# pipeline) never freezes the program: the tasks print everything they
# have (the launcher and slipway-exec keep reading their output; what the
# terminal cannot take is dropped, and a marker line says so once the
# reader reads again), `slipway stop` takes effect, and every line is in
# the logs.
source "$(dirname "$0")/lib.sh"
program=$(topology stalled)
printed() { [ -e "$WORK/loud.printed" ] && [ -e "$WORK/grouped.printed" ]; }
marker='^slipway: \[[0-9]+ lines of output dropped here: the reader of this output did not keep up; the task logs have every line\]$'
marked() { grep -Eq "$marker" "$WORK/out"; }

# The FIFO is held open by this script (fd 3), which does not read it yet.
mkfifo "$WORK/out.fifo"
exec 3<>"$WORK/out.fifo"
"$SLIPWAY" run "$program" >"$WORK/out.fifo" 2>"$WORK/err" &
guard=$!
BACKGROUND_PIDS+=("$guard")
wait_until 60 printed
echo "both tasks printed 10 MB while nobody read"

# The reader comes back: the buffered lines, then the marker.
exec 4<"$WORK/out.fifo"
exec 3>&-
cat <&4 >"$WORK/out" &
reader=$!
BACKGROUND_PIDS+=("$reader")
exec 4<&-
wait_until 60 marked
run_slipway "$WORK/stop" stop stalled
expect_status 0
set +e
wait "$guard"
status=$?
set -e
cat "$WORK/err"
expect_status 0
expect_line "$WORK/err" "program 'stalled' finished: stop requested by slipway stop"
wait "$reader"
expect_line "$WORK/out" '^loud\.0: x{99}$'
expect_line "$WORK/out" '^grouped\.0: y{99}$'
logs="$SLIPWAY_RUN_ROOT/latest/logs"
for task in loud.0 grouped.0; do
  n=$(grep -c -E '^(x|y){99}$' "$logs/$task.log" || true)
  [ "$n" -eq 101010 ] || fail "$task.log has $n full lines, expected 101010"
done
echo PASS
