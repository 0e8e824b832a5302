#!/usr/bin/env bash
# An elastic none node (actors, replicas = "2:6") resized 2 -> 6 by
# `slipway scale` from another terminal, then 6 -> 2 by its learner from
# inside the program: only the replicas that come or go start or stop (the
# learner and actors 0 and 1 keep their pids), the learner's address file
# ($SLIPWAY_ADDR_FILE_ACTOR_OBS) follows the live set while its
# SLIPWAY_ADDR_ACTOR_OBS stays the snapshot of its start, and retired
# actors are not failures. Both ways of running a task: the launcher's own
# loop, and slipway-exec (--live).
source "$(dirname "$0")/lib.sh"

pid_of() {  # STATUS NODE REPLICA
  awk -v n="$2" -v r="$3" '$1 == n && $2 == r && $6 == "running" {print $8}' "$1"
}

shrunk_after_six() { sed -n '/live 6: /,$p' "$1" | grep -q "^learner\.0: live 2: "; }

for inline in 1 0; do
  out="$WORK/out$inline"
  rm -f "$WORK/done"
  SLIPWAY_INLINE_TASKS=$inline "$SLIPWAY" run "$(topology none_elastic)" >"$out" 2>&1 &
  launcher=$!
  BACKGROUND_PIDS+=("$launcher")
  wait_until 60 grep -q "^learner\.0: live 2: " "$out"
  "$SLIPWAY" status >"$WORK/before" 2>&1
  expect_line "$WORK/before" "^actor +2 +2:6 +- +0,1$"
  "$SLIPWAY" scale actor 6 >/dev/null
  wait_until 60 grep -q "^learner\.0: live 6: " "$out"
  # The learner asked for 2 once it saw 6.
  wait_until 60 shrunk_after_six "$out"
  "$SLIPWAY" status >"$WORK/after" 2>&1
  cat "$WORK/after"
  expect_line "$WORK/after" "^actor +2 +2:6 +- +0,1$"
  for task in "actor 0" "actor 1" "learner 0"; do
    # shellcheck disable=SC2086
    before=$(pid_of "$WORK/before" $task) after=$(pid_of "$WORK/after" $task)
    [ -n "$before" ] && [ "$before" = "$after" ] || fail "$task was restarted by the resize ($before -> $after)"
  done
  for r in 2 3 4 5; do
    expect_line "$WORK/after" "^actor +$r +[^ ]+ +0 +- +exited\(143\)"
  done
  touch "$WORK/done"
  wait_for_exit "$launcher"
  cat "$out"
  expect_status 0
  expect_line "$out" "^learner\.0: snapshot [0-9.]+:[0-9]+,[0-9.]+:[0-9]+$"
  expect_line "$out" "^slipway: actor grows from 2 to 6 replicas \(asked by slipway scale \([^)]*\)\); starting actor\.2, actor\.3, actor\.4, actor\.5$"
  expect_line "$out" "^slipway: actor shrinks from 6 to 2 replicas \(asked by learner\.0\); stopping actor\.2, actor\.3, actor\.4, actor\.5$"
  expect_no_line "$out" "killed by signal|exited with status|restarting"
  wait_until 10 no_survivors
  rm -rf "$SLIPWAY_RUN_ROOT"
done
echo PASS
