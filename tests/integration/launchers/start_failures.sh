#!/usr/bin/env bash
# A task that cannot start says why, naming the task: a workdir that is a
# file is the workdir's fault (not the command's), and a command that is a
# directory is said to be one (not "Permission denied"); both for a task
# run by the launcher and one under slipway-exec.
source "$(dirname "$0")/lib.sh"
touch "$WORK/a-file"
run_slipway "$WORK/out1" run "$(topology bad_workdir)"
expect_status 1
expect_line "$WORK/out1" "^plain\.0: slipway: cannot enter the workdir '$WORK/a-file': Not a directory$"
expect_line "$WORK/out1" "^grouped\.0: slipway-exec: cannot enter the workdir '$WORK/a-file': Not a directory$"
expect_no_line "$WORK/out1" "cannot run"
run_slipway "$WORK/out2" run "$(topology directory_command)"
expect_status 1
expect_line "$WORK/out2" "^plain\.0: slipway: cannot run '$WORK': Is a directory$"
expect_line "$WORK/out2" "^grouped\.0: slipway-exec: cannot run '$WORK': Is a directory$"
expect_no_line "$WORK/out2" "Permission denied"
echo PASS
