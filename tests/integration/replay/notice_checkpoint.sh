#!/usr/bin/env bash
# A replay shard (slipway-replay) under `slipway run` and checkpoint notices
# (issue 28): the driver (notice_driver.py) inserts items, writes a notice to
# the shard's SLIPWAY_NOTICE_FILE as the task agent does, and inserts more
# once the shard has checkpointed; the program ends, and the shard's SIGTERM
# makes it write a final checkpoint. Two more runs load each checkpoint and
# count: the notice's holds every item acknowledged before the notice, the
# final one every item. The shard's notice file is set by a wrapper here, so
# the test does not depend on the launcher's agent writing it.
# Needs SLIPWAY (slipway-exec and slipway-replay beside it) and
# SLIPWAY_COURIER_LIBRARY.
set -euo pipefail
: "${SLIPWAY:?path of the slipway binary}"
: "${SLIPWAY_COURIER_LIBRARY:?path of libslipway-courier.so}"
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export UCX_NET_DEVICES=${UCX_NET_DEVICES:-lo}
export SLIPWAY_COURIER_LIBRARY
# shellcheck source=../../lib/checks.sh
source "$here/../../lib/checks.sh"  # fail

notice="$work/notice/replay.0"
# run_program CHECKPOINT_DIR DRIVER_ARGS...: one run; its output in $output.
run_program() {
  local checkpoints=$1 status=0
  shift
  local args=""
  for arg in "$@"; do args+=", \"$arg\""; done
  cat >"$work/program.toml" <<TOML
[program]
name = "replay-notice-$$"

[node.replay]
type = "replay"
wrapper = ["/usr/bin/env", "SLIPWAY_NOTICE_FILE=$notice"]

[node.replay.tables.experience]
max_size = 10000

[node.replay.tables.episodes]
kind = "queue"
max_size = 100

[node.replay.checkpoint]
path = "$checkpoints"

[node.driver]
command = ["/usr/bin/python3", "$here/notice_driver.py"$args]
handles = ["replay"]
env = { PYTHONUNBUFFERED = "1" }
TOML
  output=$(timeout 120 "$SLIPWAY" run "$work/program.toml" --run-root "$work/runs" 2>&1) || status=$?
  printf '%s\n' "$output"
  [ "$status" -eq 0 ] || fail "slipway run exited with status $status"
}

files='[^ ]*/replay\.0/checkpoint-[0-9]+\.ckpt'
run_program "$work/ckpt" fill "$notice"
grep -q '^driver\.0: driver: ok$' <<<"$output" || fail "the driver did not finish"
line=$(grep -E "^replay\.0: slipway-replay: checkpoint $files written for notice 1 \(test notice\)$" <<<"$output") ||
  fail "the shard did not say it checkpointed for the notice"
at_notice=$(sed -E 's/.*checkpoint ([^ ]+) written.*/\1/' <<<"$line")
grep -q "^driver\.0: driver: the shard wrote $at_notice$" <<<"$output" || fail "the driver saw another checkpoint"
line=$(grep -E "^replay\.0: slipway-replay: final checkpoint $files written \(SIGTERM\): 370 items, [0-9]+ bytes of data$" \
  <<<"$output") || fail "no final checkpoint of the 370 items at SIGTERM"
final=$(sed -E 's/.*final checkpoint ([^ ]+) written.*/\1/' <<<"$line")
[ "$final" != "$at_notice" ] || fail "the final checkpoint is the notice's file"

# The notice's checkpoint alone: every item acknowledged before the notice.
rm -f "$notice"  # as a new job starts without one
mkdir -p "$work/at_notice/replay.0"
cp "$at_notice" "$work/at_notice/replay.0/"
run_program "$work/at_notice" count
grep -Eq "^replay\.0: slipway-replay: loaded checkpoint $work/at_notice/replay\.0/checkpoint-[0-9]+\.ckpt: 2 tables, 320 items" \
  <<<"$output" || fail "the notice's checkpoint does not load with its 320 items"
grep -q '^driver\.0: driver: experience 300 episodes 20$' <<<"$output" || fail "the notice's checkpoint lost items"

# The final checkpoint: every item.
rm -f "$notice"
run_program "$work/ckpt" count
grep -Eq "^replay\.0: slipway-replay: loaded checkpoint $final: 2 tables, 370 items" <<<"$output" ||
  fail "the next run does not load the final checkpoint with its 370 items"
grep -q '^driver\.0: driver: experience 350 episodes 20$' <<<"$output" || fail "the final checkpoint lost items"
echo "notice_checkpoint: ok"
