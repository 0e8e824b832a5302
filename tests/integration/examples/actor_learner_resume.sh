#!/usr/bin/env bash
# The actor_learner example stopped by a checkpoint notice and resumed
# (issue 28): run 1 (actors with many episodes) gets a stop notice in every
# task's SLIPWAY_NOTICE_FILE once the learner passed step 50: both replay
# shards checkpoint at once, the learner saves its step to SLIPWAY_STATE_DIR
# and exits 0, the actors exit 0, the shards write a final checkpoint at
# their SIGTERM, and the program ends 0. Run 2 (SLIPWAY_RESUME=1) finds the
# shards' checkpoints and the learner's state: the learner says where it
# resumed, goes on from there and learns. The three variables are set by a
# wrapper here, as the launcher sets them (docs/resume.md), so the test does
# not depend on the launcher's part. Needs SLIPWAY.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../channels/example_lib.sh"  # $root, $runs, fail, expect

work=$runs  # removed at exit by example_lib.sh
mkdir -p "$work/notice" "$work/state/learner" "$work/state/actor" "$work/state/replay"
chmod 700 "$work/notice" "$work/state" "$work/state/"*

# write_topology RESUME ACTOR_EPISODES
write_topology() {
  cat >"$work/program.toml" <<TOML
[program]
name = "actor-learner-resume-$$"
max_retries = 1

[defaults]
wrapper = ["/bin/sh", "-c", "SLIPWAY_NOTICE_FILE=$work/notice/\$SLIPWAY_NODE.\$SLIPWAY_REPLICA SLIPWAY_STATE_DIR=$work/state/\$SLIPWAY_NODE SLIPWAY_RESUME=$1 exec \"\$@\"", "sh"]

[node.replay]
type = "replay"
replicas = 2
max_retries = 3

[node.replay.tables.experience]
sampler = { prioritized = 0.6 }
remover = "fifo"
max_size = 20_000
rate_limiter = { min_size = 64 }

[node.replay.tables.episodes]
kind = "queue"
max_size = 10_000

[node.replay.checkpoint]
path = "$work/ckpt"

[node.learner]
command = ["/usr/bin/python3", "$root/examples/actor_learner/learner.py", "--steps", "150"]
ports = ["params"]
handles = ["replay"]
env = { PYTHONUNBUFFERED = "1" }

[node.actor]
command = ["/usr/bin/python3", "$root/examples/actor_learner/actor.py", "--episodes", "$2"]
replicas = 2
handles = ["replay", "learner"]
env = { PYTHONUNBUFFERED = "1" }
TOML
}

write_notice() {  # TASK: as the task agent does, a whole file renamed into place
  printf '{"seq":1,"reason":"test stop","deadline_unix_ms":%s,"stop":true}' "$(($(date +%s) * 1000 + 30000))" \
    >"$work/notice/$1.tmp"
  mv "$work/notice/$1.tmp" "$work/notice/$1"
}

# Run 1: stopped by a notice after step 50.
write_topology 0 400
"$SLIPWAY" run "$work/program.toml" --run-root "$work/runs" >"$work/run1.out" 2>&1 &
launcher=$!
wait_until 120 grep -q '^learner\.0: step 50:' "$work/run1.out"
for task in learner.0 actor.0 actor.1 replay.0 replay.1; do write_notice "$task"; done
wait_for_child 120 "$launcher"
output=$(cat "$work/run1.out")
printf -- '--- run 1\n%s\n' "$output"
[ "$status" -eq 0 ] || fail "run 1: slipway run exited with status $status"
line=$(grep -E '^learner\.0: learner: stopping at step [0-9]+ for a checkpoint notice \(state saved\)$' <<<"$output") ||
  fail "run 1: the learner did not stop on the notice"
stopped_at=$(sed -E 's/.* at step ([0-9]+) .*/\1/' <<<"$line")
if [ "$stopped_at" -lt 50 ] || [ "$stopped_at" -ge 150 ]; then fail "run 1: the learner stopped at step $stopped_at"; fi
expect '^learner\.0: learner: saved step [0-9]+ for notice 1 \(test stop\)$' "run 1: the learner's handler did not save"
grep -q "\"step\": $stopped_at," "$work/state/learner/learner.json" || fail "run 1: learner.json does not hold step $stopped_at"
for actor in 0 1; do
  expect "^actor\.$actor: actor: stopping after [0-9]+ episodes for a checkpoint notice$" "run 1: actor.$actor did not stop"
done
for shard in 0 1; do
  expect "^replay\.$shard: slipway-replay: checkpoint $work/ckpt/replay\.$shard/checkpoint-[0-9]+\.ckpt written for notice 1 \(test stop\)$" \
    "run 1: replay.$shard did not checkpoint for the notice"
  expect "^replay\.$shard: slipway-replay: final checkpoint [^ ]+ written \(SIGTERM\): [0-9]+ items" \
    "run 1: replay.$shard wrote no final checkpoint"
done
expect "program 'actor-learner-resume-$$' finished: all tasks finished" "run 1: no clean finish"

# Run 2: resumed.
rm -f "$work"/notice/*
write_topology 1 40
run_example_file() {
  local status=0
  output=$(timeout 240 "$SLIPWAY" run "$1" --run-root "$work/runs" 2>&1) || status=$?
  printf -- '--- run 2\n%s\n' "$output"
  [ "$status" -eq 0 ] || fail "run 2: slipway run exited with status $status"
}
run_example_file "$work/program.toml"
expect "^learner\.0: learner: resumed at step $stopped_at \(resume 1\)$" "run 2: the learner did not resume at step $stopped_at"
for shard in 0 1; do
  expect "^replay\.$shard: slipway-replay: loaded checkpoint $work/ckpt/replay\.$shard/" "run 2: replay.$shard did not load its checkpoint"
done
first=$(grep -E '^learner\.0: step [0-9]+:' <<<"$output" | head -1 | sed -E 's/^learner\.0: step ([0-9]+):.*/\1/')
if [ -z "$first" ] || [ "$first" -le "$stopped_at" ]; then
  fail "run 2: the learner's first step line (${first:-none}) is not past step $stopped_at"
fi
expect "^learner\.0: learned weight [12]\.[0-9]+ in 150 steps from actors \[0, 1" "run 2: the learner did not learn"
expect "^actor\.[01]: sent 40 episodes" "run 2: no actor finished"
echo "$script: ok"
