#!/usr/bin/env bash
# A node handling 2500 replicas (more than the 2048 an environment list
# may hold): `slipway validate` notes it, and the handling task starts
# with the whole list in its address file and no SLIPWAY_ADDR_ACTOR_OBS.
# (The launcher's own task runner: with one slipway-exec per task, each
# agent reads the whole plan, and 2500 of them take minutes here.)
source "$(dirname "$0")/lib.sh"
program=$(topology large_handle)
run_slipway "$WORK/validate" validate "$program"
expect_status 0
expect_line "$WORK/validate" "^note: node 'learner' handles 'actor' \(up to 2500 replicas\): when more than 2048 run, its tasks get no SLIPWAY_ADDR_ACTOR_OBS and read the list from SLIPWAY_ADDR_FILE_ACTOR_OBS"
status=0
SLIPWAY_INLINE_TASKS=1 timeout 170 "$SLIPWAY" run "$program" >"$WORK/out" 2>&1 || status=$?
tail -n 3 "$WORK/out"
expect_status 0
expect_line "$WORK/out" "^learner\.0: learner sees 2500 actors$"
echo PASS
