#!/usr/bin/env bash
# Issue 28 item 4: `slipway run --resume` after the launcher was SIGKILLed
# resumes the same run directory (SLIPWAY_RESUME, attempts counted on, the
# node's SLIPWAY_STATE_DIR kept, a resume banner in the task's log), and a
# checkpoint notice reaches a task by SLIPWAY_NOTICE_FILE and its
# notice_signal: from `slipway checkpoint` (the program goes on) and from
# SIGTERM to the launcher (the program stops once the task has ended).
source "$(dirname "$0")/lib.sh"

cat >"$WORK/worker.sh" <<'SCRIPT'
# A task that counts its starts in its state directory and copies every
# checkpoint notice there; a notice with a stop ends it.
trap 'cat "$SLIPWAY_NOTICE_FILE" >>"$SLIPWAY_STATE_DIR/notices"
      if grep -q "\"stop\":true" "$SLIPWAY_NOTICE_FILE"; then echo "saved, stopping"; exit 0; fi' USR2
n=$(cat "$SLIPWAY_STATE_DIR/starts" 2>/dev/null || echo 0)
n=$((n + 1))
echo "$n" >"$SLIPWAY_STATE_DIR/starts"
echo "start $n resume=$SLIPWAY_RESUME attempt=$SLIPWAY_ATTEMPT"
while :; do sleep 0.1; done
SCRIPT
cat >"$WORK/resumable.toml" <<EOF2
[program]
name = "resumable"

[node.worker]
command = ["sh", "$WORK/worker.sh", "$MARKER"]
notice_signal = "SIGUSR2"
EOF2
log() { cat "$SLIPWAY_RUN_ROOT"/resumable.latest/logs/worker.0.log 2>/dev/null; }

# First start; its launcher is killed outright.
timeout 120 "$SLIPWAY" run "$WORK/resumable.toml" >"$WORK/first.out" 2>&1 &
first=$!
BACKGROUND_PIDS+=("$first")
SHOW_ON_FAILURE="$WORK/first.out"
wait_until 60 eval 'log | grep -q "^start 1 resume=0 attempt=0$"' || fail "the first start never ran"
run_dir=$(readlink -f "$SLIPWAY_RUN_ROOT/resumable.latest")
launcher=$(awk '$1 == "pid" { print $2 }' "$run_dir/rendezvous")
secret=$(awk '$1 == "token" { print $2 }' "$run_dir/rendezvous")
kill -KILL "$launcher"
wait_for_exit "$first"
wait_until 30 no_survivors || fail "tasks of the killed launcher survive"
run_slipway "$WORK/runs.out" runs resumable
expect_line "$WORK/runs.out" ' 0 +lost +- +- *$'

# Resumed: the same run directory, counting on.
timeout 120 "$SLIPWAY" run --resume "$WORK/resumable.toml" >"$WORK/second.out" 2>&1 &
second=$!
BACKGROUND_PIDS+=("$second")
SHOW_ON_FAILURE="$WORK/second.out"
wait_until 60 eval 'log | grep -q "^start 2 "' || fail "the resumed run never started its task"
[ "$(readlink -f "$SLIPWAY_RUN_ROOT/resumable.latest")" = "$run_dir" ] || fail "the resume made a new run directory"
[ "$(find "$SLIPWAY_RUN_ROOT" -maxdepth 1 -name 'resumable-*' -type d | wc -l)" -eq 1 ] || fail "more than one run directory"
log | grep -q "^start 2 resume=1 attempt=1$" || fail "expected SLIPWAY_RESUME=1 and attempt 1 after the resume: $(log | grep ^start)"
log | grep -q "^----- slipway: resume 1 of run $(basename "$run_dir") -----$" || fail "no resume banner in the log"
expect_line "$WORK/second.out" "^slipway: resuming program 'resumable' \(resume 1, 1 tasks\)"
# The run keeps its secret (what its replay queues signed stays readable).
[ "$(awk '$1 == "token" { print $2 }' "$run_dir/rendezvous")" = "$secret" ] || fail "the resume changed the program's secret"
run_slipway "$WORK/status.out" status resumable
expect_status 0
expect_line "$WORK/status.out" "^run $run_dir \(resume 1\)$"
# A second launcher of the same run is refused while it runs.
run_slipway "$WORK/again.out" run --resume "$WORK/resumable.toml"
expect_status 1
expect_line "$WORK/again.out" 'still runs'

# A checkpoint without a stop.
run_slipway "$WORK/checkpoint.out" checkpoint resumable --reason "test"
expect_status 0
wait_until 30 test -s "$run_dir/state/worker/notices" || fail "the checkpoint notice never reached the task"
grep -q '"stop":false' "$run_dir/state/worker/notices" || fail "the checkpoint notice is no checkpoint without a stop: $(cat "$run_dir/state/worker/notices")"
grep -q '"seq":1' "$run_dir/state/worker/notices" || fail "the first notice is not seq 1"
kill -0 "$second" || fail "the program stopped after a checkpoint without a stop"

# SIGTERM: a notice with a stop; the task saves and ends by itself. Sent
# to slipway itself: timeout would send it to its process group too, a
# second signal, which kills every task at once.
kill -TERM "$(pgrep -P "$second" | head -n 1)"
wait_for_exit "$second"
expect_status 143
grep -q '"reason":"the launcher received SIGTERM","seq":2,"stop":true' "$run_dir/state/worker/notices" || fail "no stop notice: $(cat "$run_dir/state/worker/notices")"
log | grep -q "^saved, stopping$" || fail "the task did not end on its notice"
expect_line "$WORK/second.out" 'received SIGTERM, stopping the program: checkpoint notice 2 to every task'
wait_until 30 no_survivors || fail "tasks survive the stop"
run_slipway "$WORK/runs.out" runs resumable
expect_line "$WORK/runs.out" "^$(basename "$run_dir") +resumable +[^ ]+ +1 +failed +143 +-$"

# SIGUSR1 to `slipway run` (the process started: its guard passes it on):
# the time limit's warning, a notice with a stop.
timeout 120 "$SLIPWAY" run --resume --run "$(basename "$run_dir")" "$WORK/resumable.toml" >"$WORK/third.out" 2>&1 &
third=$!
BACKGROUND_PIDS+=("$third")
SHOW_ON_FAILURE="$WORK/third.out"
wait_until 60 eval 'log | grep -q "^start 3 resume=2 attempt=2$"' || fail "the second resume never started its task"
kill -USR1 "$(pgrep -P "$third" | head -n 1)"  # slipway itself, under timeout
wait_for_exit "$third"
expect_status 138
grep -q '"reason":"the time limit is near (SIGUSR1)".*"stop":true' "$run_dir/state/worker/notices" ||
  fail "no time-limit notice: $(cat "$run_dir/state/worker/notices")"
