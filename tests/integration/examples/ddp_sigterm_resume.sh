#!/usr/bin/env bash
# examples/ddp/train.py (three torch replicas over gloo) stopped by SIGTERM
# to `slipway run` and resumed by `slipway run --resume` (issue 28 items
# 1-4), through the launcher alone: no variable is set by the test; a
# wrapper only prints what the launcher gave each rank.
#
# Run 1 (100000 epochs: mid-run when stopped): SIGTERM once rank 0 is in
# its second epoch; slipway gives checkpoint notice 1, stops the world and
# exits 143; rank 0 saved the epochs it finished (E, read from ddp.pt in
# RUN/state/trainer). Run 2 (`--resume`, the same file with E + 2 epochs):
# the same and only run directory without run 1's notices, SLIPWAY_RESUME=1,
# the world's epoch (SLIPWAY_EPOCH, TORCHELASTIC_RESTART_COUNT) one past run
# 1's, every rank resumed at epoch E and training from step 3E + 1, the
# ranks agreeing at the end, and slipway exits 0. Needs Debian's
# python3-torch.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../channels/example_lib.sh"  # $root, $runs, fail, expect
/usr/bin/python3 -c "import torch.distributed" || fail "python3-torch is not installed (scripts/setup.sh installs it)"

work=$runs  # removed at exit by example_lib.sh
program="ddp-sigterm-$$"
write_topology() {  # EPOCHS
  # shellcheck disable=SC2016  # expanded by the task's shell
  local show='echo "launched: resume=$SLIPWAY_RESUME epoch=$SLIPWAY_EPOCH restarts=$TORCHELASTIC_RESTART_COUNT"; exec "$@"'
  cat >"$work/ddp.toml" <<TOML
[program]
name = "$program"

[node.trainer]
command = ["/usr/bin/python3", "$root/examples/ddp/train.py", "--steps", "3", "--epochs", "$1"]
wrapper = ["/bin/sh", "-c", '$show', "sh"]
replicas = 3
cpus = 1
framework = "torch"
env = { OMP_NUM_THREADS = "1" }
TOML
}

# Run 1: SIGTERM to slipway itself (timeout would signal its process group
# a second time: every task killed at once).
write_topology 100000
timeout 90 "$SLIPWAY" run "$work/ddp.toml" --run-root "$work/runs" >"$work/run1.out" 2>&1 &
first=$!
wait_until 60 grep -q '^trainer\.0: rank 0/3 step 4:' "$work/run1.out"
kill -TERM "$(pgrep -P "$first" | head -n 1)"
wait_for_child 60 "$first"
output=$(cat "$work/run1.out")
printf -- '--- run 1\n%s\n' "$output"
[ "$status" -eq 143 ] || fail "run 1: slipway run exited with status $status, not 143 (SIGTERM)"
expect "^slipway: received SIGTERM, stopping the program: checkpoint notice 1 to every task" "run 1: no checkpoint notice"
expect "^slipway: program '$program' stopped: interrupted by SIGTERM$" "run 1: not stopped by SIGTERM"
for rank in 0 1 2; do
  expect "^trainer\.$rank: launched: resume=0 epoch=0 restarts=0$" "run 1: rank $rank did not start at resume 0, epoch 0"
done
[ "$(grep -Ec '^trainer\.[012]: launched: ' <<<"$output")" -eq 3 ] || fail "run 1: a rank was launched again"
run_dir=$(find "$work/runs" -mindepth 1 -maxdepth 1 -type d -name "$program-*")
[ -d "$run_dir" ] || fail "run 1: no run directory under $work/runs"
saved=$(/usr/bin/python3 -c 'import sys, torch; print(torch.load(sys.argv[1])["epoch"])' "$run_dir/state/trainer/ddp.pt") ||
  fail "run 1: rank 0 saved no readable ddp.pt in $run_dir/state/trainer"
[ "$saved" -ge 1 ] || fail "run 1: rank 0 saved epoch $saved"
if grep -Eq "^trainer\.0: rank 0/3 step $((3 * saved + 4)):" <<<"$output"; then
  fail "run 1: rank 0 finished epoch $((saved + 1)) and saved epoch $saved"
fi

# Run 2: resumed from the same file, for two more epochs.
write_topology $((saved + 2))
status=0
output=$(timeout 90 "$SLIPWAY" run --resume "$work/ddp.toml" --run-root "$work/runs" 2>&1) || status=$?
printf -- '--- run 2\n%s\n' "$output"
[ "$status" -eq 0 ] || fail "run 2: slipway run --resume exited with status $status"
[ "$(find "$work/runs" -mindepth 1 -maxdepth 1 -type d | wc -l)" -eq 1 ] || fail "run 2: more than one run directory"
expect "^slipway: resuming program '$program' \(resume 1, 3 tasks\); run directory $run_dir$" "run 2: no resume of $run_dir"
[ -z "$(ls "$run_dir/notice")" ] || fail "run 2: notices of run 1 left in $run_dir/notice: $(ls "$run_dir/notice")"
for rank in 0 1 2; do
  expect "^trainer\.$rank: launched: resume=1 epoch=1 restarts=1$" \
    "run 2: rank $rank was not launched at resume 1 in the world's next epoch (1)"
  expect "^trainer\.$rank: rank $rank/3: resumed at epoch $saved \(resume 1\)$" "run 2: rank $rank did not resume at epoch $saved"
  first_step=$(grep -E "^trainer\.$rank: rank $rank/3 step [0-9]+:" <<<"$output" | head -1 | sed -E 's/.* step ([0-9]+):.*/\1/')
  [ "$first_step" = $((3 * saved + 1)) ] || fail "run 2: rank $rank's first step is ${first_step:-none}, not $((3 * saved + 1))"
  expect "^trainer\.$rank: rank $rank/3: $((3 * (saved + 2))) steps done, weights agree across ranks$" \
    "run 2: rank $rank did not finish"
done
expect "^slipway: program '$program' finished: all tasks finished" "run 2: no clean finish"
echo "$script: ok"
