#!/usr/bin/env bash
# examples/ddp/train.py stopped by a checkpoint notice and resumed (issue
# 28): run 1 (many epochs) gets a stop notice in every rank's
# SLIPWAY_NOTICE_FILE once it trains; the world stops together after an
# epoch E (rank 0 saved it to SLIPWAY_STATE_DIR) and the program ends 0.
# Run 2 (SLIPWAY_RESUME=1, E + 2 epochs): every rank says it resumed at
# epoch E and trains epochs E+1 and E+2 only, the ranks agreeing at the
# end. The three variables are set by a wrapper here, as the launcher sets
# them (docs/resume.md). Needs SLIPWAY and Debian's python3-torch.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../channels/example_lib.sh"  # $root, $runs, fail, expect
/usr/bin/python3 -c "import torch.distributed" || fail "python3-torch is not installed (scripts/setup.sh installs it)"

work=$runs  # removed at exit by example_lib.sh
mkdir -p "$work/notice" "$work/state/trainer"
chmod 700 "$work/notice" "$work/state" "$work/state/trainer"

write_topology() {  # RESUME EPOCHS
  cat >"$work/ddp.toml" <<TOML
[program]
name = "ddp-resume-$$"

[node.trainer]
command = ["/usr/bin/python3", "$root/examples/ddp/train.py", "--steps", "3", "--epochs", "$2"]
wrapper = ["/bin/sh", "-c", "SLIPWAY_NOTICE_FILE=$work/notice/\$SLIPWAY_NODE.\$SLIPWAY_REPLICA SLIPWAY_STATE_DIR=$work/state/\$SLIPWAY_NODE SLIPWAY_RESUME=$1 exec \"\$@\"", "sh"]
replicas = 3
framework = "torch"
env = { OMP_NUM_THREADS = "1" }
TOML
}

# Run 1: stopped by a notice.
write_topology 0 200
"$SLIPWAY" run "$work/ddp.toml" --run-root "$work/runs" >"$work/run1.out" 2>&1 &
launcher=$!
wait_until 120 grep -q '^trainer\.0: rank 0/3 step 6:' "$work/run1.out"
for rank in 0 1 2; do
  printf '{"seq":1,"reason":"test stop","deadline_unix_ms":%s,"stop":true}' "$(($(date +%s) * 1000 + 30000))" \
    >"$work/notice/trainer.$rank.tmp"
  mv "$work/notice/trainer.$rank.tmp" "$work/notice/trainer.$rank"
done
wait_for_child 120 "$launcher"
output=$(cat "$work/run1.out")
printf -- '--- run 1\n%s\n' "$output"
[ "$status" -eq 0 ] || fail "run 1: slipway run exited with status $status"
line=$(grep -E '^trainer\.0: rank 0/3: stopping after epoch [0-9]+ for a checkpoint notice$' <<<"$output") ||
  fail "run 1: rank 0 did not stop on the notice"
epoch=$(sed -E 's/.* after epoch ([0-9]+) .*/\1/' <<<"$line")
for rank in 1 2; do
  expect "^trainer\.$rank: rank $rank/3: stopping after epoch $epoch for a checkpoint notice$" \
    "run 1: rank $rank did not stop after epoch $epoch with rank 0"
done
[ -s "$work/state/trainer/ddp.pt" ] || fail "run 1: rank 0 saved no ddp.pt"

# Run 2: resumed for two more epochs.
rm -f "$work"/notice/*
write_topology 1 $((epoch + 2))
status=0
output=$(timeout 240 "$SLIPWAY" run "$work/ddp.toml" --run-root "$work/runs" 2>&1) || status=$?
printf -- '--- run 2\n%s\n' "$output"
[ "$status" -eq 0 ] || fail "run 2: slipway run exited with status $status"
for rank in 0 1 2; do
  expect "^trainer\.$rank: rank $rank/3: resumed at epoch $epoch \(resume 1\)$" "run 2: rank $rank did not resume at epoch $epoch"
  first=$(grep -E "^trainer\.$rank: rank $rank/3 step [0-9]+:" <<<"$output" | head -1 | sed -E 's/.* step ([0-9]+):.*/\1/')
  [ "$first" = $((3 * epoch + 1)) ] || fail "run 2: rank $rank's first step is ${first:-none}, not $((3 * epoch + 1))"
  expect "^trainer\.$rank: rank $rank/3: $((3 * (epoch + 2))) steps done, weights agree across ranks$" \
    "run 2: rank $rank did not finish"
done
echo "$script: ok"
