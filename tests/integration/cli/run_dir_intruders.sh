#!/usr/bin/env bash
# Issue 27 item 11: what another process put in a run directory cannot hang
# or mislead the commands that read it. A FIFO where the outcome, the exit
# status and the rendezvous file should be: `slipway runs`, `runs --prune` and
# `slipway keeper` answer at once (the run is lost; the keeper says there is
# no contact). A FIFO or a link to /dev/zero where a task's log should be:
# `slipway logs` skips it. `slipway logs` takes no path out of the run root
# from a name (`..`, `../x`, a node named `..`).
source "$(dirname "$0")/lib.sh"

program "$WORK/t.toml" fifo talker "echo said"
run_slipway "$WORK/out" run "$WORK/t.toml"
expect_status 0
run="$SLIPWAY_RUN_ROOT/$(readlink "$SLIPWAY_RUN_ROOT/fifo.latest")"
rm "$run/outcome.json" "$run/exit" "$run/rendezvous"
mkfifo "$run/outcome.json" "$run/exit" "$run/rendezvous"

# timeout 20: 124 means it waited on a FIFO.
run_logged "$WORK/runs.out" timeout 20 "$SLIPWAY" runs
expect_status 0
expect_line "$WORK/runs.out" '^fifo-[0-9-]+ +fifo +[0-9T:-]+ +0 +lost +- +-$'
sleep 1.1  # a lost run that changed within --max-age is kept
run_logged "$WORK/prune.out" timeout 20 "$SLIPWAY" runs --prune --keep 0 --max-age 0
expect_status 0
expect_line "$WORK/prune.out" "^removed $run \(lost\)$"
[ ! -e "$run" ] || fail "runs --prune left $run"

run_slipway "$WORK/out" run "$WORK/t.toml"
expect_status 0
run="$SLIPWAY_RUN_ROOT/$(readlink "$SLIPWAY_RUN_ROOT/fifo.latest")"
rm "$run/rendezvous"
mkfifo "$run/rendezvous"
run_logged "$WORK/keeper.out" env SLIPWAY_RUN_DIR="$run" SLURM_JOB_ID=1 timeout 20 "$SLIPWAY" keeper
expect_status 1
expect_line "$WORK/keeper.out" "^slipway keeper: no rendezvous contact in $run"

# Logs that are not files.
mkfifo "$run/logs/piped.0.log"
ln -s /dev/zero "$run/logs/zero.0.log"
run_logged "$WORK/logs.out" timeout 20 "$SLIPWAY" logs fifo
expect_status 0
expect_line "$WORK/logs.out" '^talker\.0: said$'
for task in piped.0 zero.0; do
  run_logged "$WORK/logs.out" timeout 20 "$SLIPWAY" logs fifo "$task"
  expect_status 1
  expect_line "$WORK/logs.out" "^slipway logs: no log for $task in "
done

# Names that would leave the run root.
mkdir -p "$WORK/logs"
echo outside >"$WORK/logs/x.0.log"
for args in ".." "../x" ".. x.0" "fifo ...0" "fifo ../logs/x.0"; do
  # shellcheck disable=SC2086
  run_logged "$WORK/logs.out" timeout 20 "$SLIPWAY" logs $args
  expect_status 1
  expect_no_line "$WORK/logs.out" "outside"
done
run_logged "$WORK/logs.out" timeout 20 "$SLIPWAY" logs ..
expect_line "$WORK/logs.out" "^slipway logs: '\.\.' is neither a run directory \(one holding plan\.json\) nor a program's or run's name"
echo PASS
