#!/usr/bin/env bash
# Issue 29 item 2: `slipway top` on a saved status document (--file), under
# a pseudo-terminal (pty_screen.py): every node, replay table and event is
# on the screen; f shows a node's tasks, / finds a node, Enter opens a
# task's log in $PAGER and the view comes back; q, Ctrl-C and SIGTERM end
# it with the terminal restored, and so does an error (the file removed).
# --once prints one frame without a terminal; without one and without
# --once it refuses.
source "$(dirname "$0")/lib.sh"
PTY=(/usr/bin/python3 "$(dirname "$0")/pty_screen.py" --stderr "$WORK/top.err")

# The unit tests' fixture, its run directory here, with one task log.
RUN="$WORK/runs/impala-run"
mkdir -p "$RUN/logs"
echo "learner.1 log line $MARKER" >"$RUN/logs/learner.1.log"
sed "s|\"run\": \"[^\"]*\"|\"run\": \"$RUN\"|" "$FIXTURES/status_first.json" >"$WORK/status.json"
grep -q "\"run\": \"$RUN\"" "$WORK/status.json" || fail "the fixture has no run field to point here"

# --once: the frame as text.
run_slipway "$WORK/once.out" top --once --file "$WORK/status.json"
expect_status 0
expect_line "$WORK/once.out" '^impala  running  resume 1  up 1:01:01  members 7$'
expect_line "$WORK/once.out" '^NODE +TYPE +LIVE +MIN:MAX +RUN +PEND +BACK +FAIL +DONE +RESTARTS +EPOCH +CPU% +RSS +LAST EXIT$'
expect_line "$WORK/once.out" '^learner +exec +2 +2:2 +2 +0 +0 +0 +0 +4 +3 +- +8\.0G +r1 signal 9 \(SIGKILL\), 2m ago$'
expect_line "$WORK/once.out" '^replay\.0 +experience +12\.3k/1\.0M +- +- +3/0$'
run_slipway "$WORK/once.out" top --once --node actor --file "$WORK/status.json"
expect_status 0
expect_line "$WORK/once.out" '^ +2 +node5 +pending +0 +- +- +- +-$'
run_slipway "$WORK/once.out" top --once --node nosuch --file "$WORK/status.json"
expect_status 1
expect_line "$WORK/once.out" "no node 'nosuch' in impala \(its nodes: replay, learner, actor\)"

# Without a terminal, only --once.
run_slipway "$WORK/notty.out" top --file "$WORK/status.json" </dev/null
expect_status 1
expect_line "$WORK/notty.out" '^slipway top: standard input and output must be a terminal'

# The live view: every node, the replay table, the events; then the keys.
PAGER="cat" "${PTY[@]}" \
  expect='impala  running  resume 1' expect='NODE    TYPE' expect='replay  replay' expect='learner exec' \
  expect='actor   exec' expect='replay.0 experience' expect='program_start' expect='q quit' \
  key=j key=f expect='REPLICA HOST' expect='      0 node2 running' absent='actor   exec' \
  key=j key='\r' seen="learner.1 log line $MARKER" expect='REPLICA HOST' \
  key=f expect='actor   exec' \
  key=/ expect='node:' key='ac\r' expect='node actor' expect='      3 node5 failed' \
  key=s expect='sort restarts' \
  key=q exit=0 restored \
  -- "$SLIPWAY" top --file "$WORK/status.json"

# The terminal resized: the frame follows at once (the key help on the new
# last row), not at the next document (none new: the file stays the same;
# with --interval 10 no "no update" line redraws it within 30 s either).
"${PTY[@]}" row=39:'q quit' timeout=5 resize=20x70 row=19:'q quit' expect='learner exec' resize=45x100 \
  row=44:'q quit' key=q exit=0 restored -- "$SLIPWAY" top --interval 10 --file "$WORK/status.json"

# A task without a log says so and stays.
"${PTY[@]}" key=/ key='actor\r' expect='node actor' key='\r' expect='no log of actor.0 yet (a task' key=q exit=0 restored \
  -- "$SLIPWAY" top --file "$WORK/status.json"

# Ctrl-C quits as q does; SIGTERM ends it with 128+15; both give the terminal back.
"${PTY[@]}" expect='learner exec' key='\x03' exit=0 restored -- "$SLIPWAY" top --file "$WORK/status.json"
"${PTY[@]}" expect='learner exec' signal=TERM exit=143 restored -- "$SLIPWAY" top --file "$WORK/status.json"

# An error while the screen is up (the file removed): exit 1, the terminal
# given back, the message on standard error.
cp "$WORK/status.json" "$WORK/gone.json"
"${PTY[@]}" expect='learner exec' sh="rm $WORK/gone.json" exit=1 restored stderr="slipway top: cannot read $WORK/gone.json" \
  -- "$SLIPWAY" top --interval 0.2 --file "$WORK/gone.json"
