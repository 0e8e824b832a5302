#!/usr/bin/env bash
# Issue 11 item 20: `-` reads the topology from standard input; a FIFO is
# refused at once instead of blocking validate, plan and run; commands that
# read the topology again later refuse `-` with what to do.
source "$(dirname "$0")/lib.sh"

program "$WORK/t.toml" piped talker 'echo said $SLIPWAY_NODE'

run_slipway "$WORK/out" validate - <"$WORK/t.toml"
expect_status 0
expect_line "$WORK/out" '^<stdin>: valid \(program piped, 1 node, 1 task\)$'
run_slipway "$WORK/out" plan - <"$WORK/t.toml"
expect_status 0
expect_line "$WORK/out" '^talker\.0 '
(cd "$WORK" && run_slipway "$WORK/out" run - <"$WORK/t.toml")
expect_status 0
expect_line "$WORK/out" '^talker\.0: said talker$'

printf '[program]\nname = "x"\nbogus = 1\n' >"$WORK/bad.toml"
run_slipway "$WORK/out" validate - <"$WORK/bad.toml"
expect_status 2
expect_line "$WORK/out" "^<stdin>:3:1: unknown key 'bogus' in \[program\]"

mkfifo "$WORK/fifo.toml"
for command in validate plan run; do
  run_logged "$WORK/out" timeout 20 "$SLIPWAY" "$command" "$WORK/fifo.toml"
  [ "$status" -eq 2 ] || fail "slipway $command of a FIFO: exit $status, expected 2 (124: it blocked)"
  expect_line "$WORK/out" "fifo.toml: cannot open: is a FIFO, not a regular file; give a file, or - to read standard input$"
done

for command in "sbatch --dry-run" launch; do
  # shellcheck disable=SC2086
  run_slipway "$WORK/out" $command - <"$WORK/t.toml"
  expect_status 2
  expect_line "$WORK/out" "reads the topology again later, so it cannot come from standard input; write it to a file"
done
echo PASS
