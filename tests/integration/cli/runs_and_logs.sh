#!/usr/bin/env bash
# Issue 11 item 6: `slipway runs` lists the runs kept under the run root
# (program, start, state, exit, the task that failed it: outcome.json) and
# `slipway logs` prints or follows a task's log without its path.
source "$(dirname "$0")/lib.sh"

program "$WORK/talk.toml" talk talker "echo hello from \$SLIPWAY_NODE.\$SLIPWAY_REPLICA; printf 'no newline'" \
  "replicas = 2"
program "$WORK/bad.toml" bad breaker "echo oops; exit 3"
program "$WORK/slow.toml" slow ticker "for i in 1 2 3 4 5; do echo tick \$i; sleep 0.4; done"
# A colocated unit (one agent runs both) whose breaker fails: FAILED names
# the task, not the unit (outcome.json).
program "$WORK/pair.toml" pair calm "sleep 30" 'colocate = "g"' '' '[node.breaker]' \
  "command = [\"sh\", \"-c\", \"sleep 0.5; exit 3\", \"$MARKER\"]" 'colocate = "g"'

run_slipway "$WORK/out" run "$WORK/pair.toml"
expect_status 1
pair_dir=$(ls -d "$SLIPWAY_RUN_ROOT"/pair-*)
grep -q '"name": "calm.0+breaker.0"' "$pair_dir/outcome.json" ||
  fail "outcome.json names no failed unit: $(cat "$pair_dir/outcome.json")"
# The progress line points at the log of the task that failed, not at the
# unit's first task's.
expect_line "$WORK/out" '^slipway: calm\.0\+breaker\.0 exited with status 3 \(breaker\.0 failed; log: .*/logs/breaker\.0\.log\)$'
sleep 1.1
run_slipway "$WORK/out" run "$WORK/talk.toml"
expect_status 0
sleep 1.1  # runs are told apart by their start second
run_slipway "$WORK/out" run "$WORK/bad.toml"
expect_status 1

run_slipway "$WORK/runs.out" runs
expect_status 0
expect_line "$WORK/runs.out" '^RUN +PROGRAM +START +RESUMES +STATE +EXIT +FAILED$'
expect_line "$WORK/runs.out" '^talk-[0-9]{8}-[0-9]{6}-[0-9]+ +talk +[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8} +0 +done +0 +-$'
expect_line "$WORK/runs.out" '^bad-[0-9]{8}-[0-9]{6}-[0-9]+ +bad +[0-9-]{10}T[0-9:]{8} +0 +failed +1 +breaker\.0$'
expect_line "$WORK/runs.out" '^pair-[0-9]{8}-[0-9]{6}-[0-9]+ +pair +[0-9-]{10}T[0-9:]{8} +0 +failed +1 +breaker\.0$'
[ "$(grep -c -- '-[0-9]\{8\}-' "$WORK/runs.out")" -eq 3 ] || fail "expected 3 runs listed"
run_slipway "$WORK/runs.out" runs talk
expect_no_line "$WORK/runs.out" '^bad-'

# Every task of a program's newest run, prefixed; the last line completed.
run_slipway "$WORK/logs.out" logs talk
expect_status 0
expect_line "$WORK/logs.out" '^talker\.0: hello from talker\.0$'
expect_line "$WORK/logs.out" '^talker\.1: hello from talker\.1$'
expect_line "$WORK/logs.out" '^talker\.1: no newline$'
# One task: its log as it is.
run_slipway "$WORK/logs.out" logs talk talker.1
expect_status 0
expect_line "$WORK/logs.out" '^=== slipway: talker\.1 attempt 0 on '
[ "$(grep -v '^=== slipway: ' "$WORK/logs.out")" = "hello from talker.1
no newline" ] || fail "logs talk talker.1 printed something else"
# A task of the newest run (bad), by run directory, by run name.
run_slipway "$WORK/logs.out" logs breaker.0
expect_status 0
expect_line "$WORK/logs.out" '^oops$'
run_dir=$(cd "$SLIPWAY_RUN_ROOT" && ls -d talk-*)
run_slipway "$WORK/logs.out" logs "$SLIPWAY_RUN_ROOT/$run_dir" talker.0
expect_line "$WORK/logs.out" '^hello from talker\.0$'
run_slipway "$WORK/logs.out" logs "$run_dir" talker.0
expect_line "$WORK/logs.out" '^hello from talker\.0$'
# What is not there is named, with what is.
run_slipway "$WORK/logs.out" logs talker.0
expect_status 1
expect_line "$WORK/logs.out" '^slipway logs: no log for talker\.0 in .*/bad-[^ ]+ .*tasks with logs: breaker\.0$'
run_slipway "$WORK/logs.out" logs nosuchprogram
expect_status 1
expect_line "$WORK/logs.out" "no run directory or program named 'nosuchprogram'"

# Following a running task: every line, then an exit once the run ended.
"$SLIPWAY" run "$WORK/slow.toml" >"$WORK/slow.out" 2>&1 &
BACKGROUND_PIDS+=($!)
slow_pid=$!
started slow "$slow_pid" "$WORK/slow.out"
run_slipway "$WORK/runs.out" runs slow
expect_line "$WORK/runs.out" '^slow-[^ ]+ +slow +[^ ]+ +0 +running +- +-$'
run_slipway "$WORK/follow.out" logs slow ticker.0 -f
expect_status 0
for i in 1 2 3 4 5; do expect_line "$WORK/follow.out" "^tick $i\$"; done
wait "$slow_pid" || fail "the slow program failed"
run_slipway "$WORK/runs.out" runs slow
expect_line "$WORK/runs.out" '^slow-[^ ]+ +slow +[^ ]+ +0 +done +0 +-$'

# Help reads like Slurm's tools: usage, options, columns and exit statuses.
run_slipway "$WORK/help.out" runs --help
expect_line "$WORK/help.out" '^Columns: RUN'
expect_line "$WORK/help.out" 'Retention rule'
run_slipway "$WORK/help.out" logs --help
expect_line "$WORK/help.out" '^Usage: .*logs \[OPTIONS\] \[PROGRAM\] \[NODE\.REPLICA\]'
echo PASS
