#!/usr/bin/env bash
# The actor_learner example stopped by SIGTERM to `slipway run` and resumed
# by `slipway run --resume` (issue 28 items 2-4), through the launcher
# alone: no variable is set by the test. The program is a copy of
# examples/actor_learner.toml with more learner steps and actor episodes
# (mid-run when stopped), plus a monitor node (actor_learner_monitor.py)
# that reads the replay node's sizes at the notice and, after the resume,
# before the learner and the actors start (they wait for it).
#
# Run 1: SIGTERM once the learner passed step 50. slipway gives checkpoint
# notice 1, the learner saves its step to RUN/state/learner, both shards
# checkpoint for the notice and again at their SIGTERM, and slipway exits
# 143. Run 2 (`--resume`, the same file): the same and only run directory,
# the notices of run 1 gone, the secret unchanged, SLIPWAY_RESUME=1 in the
# tasks, each shard loads the checkpoint it wrote last, the node holds
# every item of those checkpoints (the experience the monitor saw at the
# notice included), the queue's items signed before the stop (the monitor's
# marker among them) are read without a "not signed" error, the learner
# resumes at the step it saved and learns, and the program finishes 0.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../channels/example_lib.sh"  # $root, $runs, fail, expect

work=$runs  # removed at exit by example_lib.sh
program="actor-learner-sigterm-$$"
# The learner and the actors of a resumed run wait for the monitor's count.
# shellcheck disable=SC2016  # expanded by the task's shell
gate='if [ "$SLIPWAY_RESUME" != 0 ]; then until [ -e "$SLIPWAY_RUN_DIR/state/monitor/counted.$SLIPWAY_RESUME" ]; do sleep 0.1; done; fi; exec "$@"'
cat >"$work/program.toml" <<TOML
[program]
name = "$program"
max_retries = 1

[node.replay]
type = "replay"
replicas = 2
max_retries = 3
mem = "256M"

[node.replay.tables.experience]
sampler = { prioritized = 0.6 }
remover = "fifo"
max_size = 20_000
rate_limiter = { min_size = 64 }

[node.replay.tables.episodes]
kind = "queue"
max_size = 10_000

[node.replay.checkpoint]
every = "2s"

[node.learner]
command = ["/usr/bin/python3", "$root/examples/actor_learner/learner.py", "--steps", "200"]
wrapper = ["/bin/sh", "-c", '$gate', "sh"]
ports = ["params"]
handles = ["replay"]
env = { PYTHONUNBUFFERED = "1" }
mem = "256M"

[node.actor]
command = ["/usr/bin/python3", "$root/examples/actor_learner/actor.py", "--episodes", "100"]
wrapper = ["/bin/sh", "-c", '$gate', "sh"]
replicas = "2:4"
handles = ["replay", "learner"]
env = { PYTHONUNBUFFERED = "1" }

[node.monitor]
command = ["/usr/bin/python3", "$root/tests/integration/examples/actor_learner_monitor.py"]
handles = ["replay"]
notice_signal = "SIGUSR2"
env = { PYTHONUNBUFFERED = "1" }
TOML

# sum_items OUTPUT REGEX: the sum of "N items" over the lines matching REGEX.
sum_items() {
  grep -E "$2" <<<"$1" | sed -E 's/.*[^0-9]([0-9]+) items.*/\1/' | awk '{ s += $1 } END { print s + 0 }'
}

# Run 1: SIGTERM to slipway itself (timeout would signal its process group
# a second time: every task killed at once).
timeout 90 "$SLIPWAY" run "$work/program.toml" --run-root "$work/runs" >"$work/run1.out" 2>&1 &
first=$!
wait_until 60 grep -q '^learner\.0: step 50:' "$work/run1.out"
kill -TERM "$(pgrep -P "$first" | head -n 1)"
wait_for_child 60 "$first"
output=$(cat "$work/run1.out")
printf -- '--- run 1\n%s\n' "$output"
[ "$status" -eq 143 ] || fail "run 1: slipway run exited with status $status, not 143 (SIGTERM)"
run_dir=$(find "$work/runs" -mindepth 1 -maxdepth 1 -type d -name "$program-*")
[ -d "$run_dir" ] || fail "run 1: no run directory under $work/runs"
secret=$(awk '$1 == "token" { print $2 }' "$run_dir/rendezvous")
expect "^slipway: received SIGTERM, stopping the program: checkpoint notice 1 to every task" "run 1: no checkpoint notice"
expect '^learner\.0: learner: saved step [0-9]+ for notice [01] ' "run 1: the learner did not save on the notice"
saved=$(sed -nE 's/.*"step": ([0-9]+),.*/\1/p' "$run_dir/state/learner/learner.json" 2>/dev/null) ||
  fail "run 1: no learner.json in $run_dir/state/learner"
[ "${saved:-0}" -ge 50 ] || fail "run 1: the learner saved step '${saved}', not one past step 50"
last_line=$(grep -E '^learner\.0: learner: saved step' <<<"$output" | tail -1 | sed -E 's/.*saved step ([0-9]+) .*/\1/')
[ "$saved" -ge "$last_line" ] || fail "run 1: learner.json holds step $saved, before the step $last_line it said it saved"
line=$(grep -E '^monitor\.0: monitor: at notice 1: experience [0-9]+, episodes [0-9]+$' <<<"$output") ||
  fail "run 1: the monitor did not count at the notice"
at_notice=$(sed -E 's/.*experience ([0-9]+),.*/\1/' <<<"$line")
[ "$at_notice" -gt 0 ] || fail "run 1: the replay node held no experience at the notice"
for shard in 0 1; do
  expect "^replay\.$shard: slipway-replay: checkpoint [^ ]+ written for notice 1 \(the launcher received SIGTERM\)$" \
    "run 1: replay.$shard did not checkpoint for the notice"
  expect "^replay\.$shard: slipway-replay: final checkpoint [^ ]+ written \(SIGTERM\): [0-9]+ items" \
    "run 1: replay.$shard wrote no final checkpoint"
done
final=$(sum_items "$output" '^replay\.[01]: slipway-replay: final checkpoint ')
expect "^slipway: program '$program' stopped: interrupted by SIGTERM$" "run 1: not stopped by SIGTERM"
[ -n "$(ls "$run_dir/notice")" ] || fail "run 1: no notice file in $run_dir/notice"

# Run 2: resumed from the same file.
status=0
output=$(timeout 90 "$SLIPWAY" run --resume "$work/program.toml" --run-root "$work/runs" 2>&1) || status=$?
printf -- '--- run 2\n%s\n' "$output"
[ "$status" -eq 0 ] || fail "run 2: slipway run --resume exited with status $status"
[ "$(find "$work/runs" -mindepth 1 -maxdepth 1 -type d | wc -l)" -eq 1 ] || fail "run 2: more than one run directory"
expect "^slipway: resuming program '$program' \(resume 1, [0-9]+ tasks\)" "run 2: no resume of the run"
grep -q '^resume 1$' "$run_dir/resume" || fail "run 2: $run_dir/resume does not say resume 1: $(cat "$run_dir/resume")"
[ "$(awk '$1 == "token" { print $2 }' "$run_dir/rendezvous")" = "$secret" ] || fail "run 2: the resume changed the program's secret"
[ -z "$(ls "$run_dir/notice")" ] || fail "run 2: notices of run 1 left in $run_dir/notice: $(ls "$run_dir/notice")"
for shard in 0 1; do
  written=$(grep -E "^replay\.$shard: slipway-replay: final checkpoint " "$work/run1.out" | sed -E 's/.*final checkpoint ([^ ]+) .*/\1/')
  expect "^replay\.$shard: slipway-replay: loaded checkpoint $written: " "run 2: replay.$shard did not load $written"
done
loaded=$(sum_items "$output" '^replay\.[01]: slipway-replay: loaded checkpoint ')
[ "$loaded" -eq "$final" ] || fail "run 2: the shards loaded $loaded items, their final checkpoints held $final"
line=$(grep -E '^monitor\.0: monitor: resume 1: experience [0-9]+, episodes [0-9]+$' <<<"$output") ||
  fail "run 2: the monitor did not count with SLIPWAY_RESUME=1"
experience=$(sed -E 's/.*experience ([0-9]+),.*/\1/' <<<"$line")
queued=$(sed -E 's/.*episodes ([0-9]+)$/\1/' <<<"$line")
[ "$experience" -ge "$at_notice" ] || fail "run 2: $experience experience items after the resume, $at_notice at the notice"
[ $((experience + queued)) -eq "$final" ] ||
  fail "run 2: the replay node holds $((experience + queued)) items after the resume, its final checkpoints $final"
expect "^monitor\.0: monitor: read $queued episode summaries, marker 1, unreadable 0$" \
  "run 2: the queue's items from before the stop were not all read back"
if grep -q 'not signed' <<<"$output"; then fail "run 2: an item signed before the resume was refused"; fi
expect "^learner\.0: learner: resumed at step $saved \(resume 1\)$" "run 2: the learner did not resume at step $saved"
expect "^learner\.0: learned weight [12]\.[0-9]+ in 200 steps from actors \[0, 1" "run 2: the learner did not learn"
expect "^slipway: program '$program' finished: all tasks finished" "run 2: no clean finish"
echo "$script: ok"
