#!/usr/bin/env bash
# slipway-exec with --replicas 6 (one Slurm step's agent, here against a
# standalone `slipway rendezvous`) holds ONE connection to the rendezvous
# for its six tasks (counted in /proc: its sockets whose peer is the
# rendezvous port), and every task still joins, publishes its port and is
# handed all six addresses; each leaves with its exit status.
source "$(dirname "$0")/lib.sh"
: "${SLIPWAY_EXEC:?SLIPWAY_EXEC must point at slipway-exec}"
program=$(topology exec_replicas)
"$SLIPWAY" plan --json "$program" >"$WORK/plan.json" 2>"$WORK/plan.err" ||
  fail "slipway plan --json failed: $(cat "$WORK/plan.err")"

"$SLIPWAY" rendezvous --token-out "$WORK/token" --declare work=6 >"$WORK/rdzv.out" 2>"$WORK/rdzv.err" &
rdzv=$!
BACKGROUND_PIDS+=("$rdzv")
wait_until 20 grep -q '^SLIPWAY_RDZV=' "$WORK/rdzv.out"
endpoint=$(sed -n 's/^SLIPWAY_RDZV=//p' "$WORK/rdzv.out")
port=${endpoint##*:}

mkdir -p "$WORK/logs"
SHOW_ON_FAILURE="$WORK/exec.out"
SLIPWAY_RDZV=$endpoint SLIPWAY_TOKEN=$(cat "$WORK/token") \
  "$SLIPWAY_EXEC" --plan "$WORK/plan.json" --node work --replicas 0-5 --log-dir "$WORK/logs" \
  >"$WORK/exec.out" 2>&1 &
agent=$!
BACKGROUND_PIDS+=("$agent")

# Sockets of the agent whose peer is the rendezvous (hex port in
# /proc/net/tcp{,6}, matched by inode against the agent's descriptors).
rdzv_sockets() {
  local inodes hexport
  inodes=$(find "/proc/$agent/fd" -maxdepth 1 -lname 'socket:*' -printf '%l\n' 2>/dev/null |
    sed 's/socket:\[\(.*\)\]/\1/' | sort -u)
  hexport=$(printf '%04X' "$port")
  cat "/proc/$agent/net/tcp" "/proc/$agent/net/tcp6" 2>/dev/null |
    awk -v p="$hexport" 'NR > 0 { split($3, r, ":"); if (r[2] == p) print $10 }' |
    grep -Fxc -f <(echo "$inodes") || true
}
all_joined() { [ "$(grep -c '^work\.[0-5]: peers=' "$WORK/exec.out")" -eq 6 ]; }
wait_until 30 all_joined
count=$(rdzv_sockets)
[ "$count" -eq 1 ] || fail "slipway-exec with 6 replicas holds $count connections to the rendezvous, expected 1"
threads=$(ls "/proc/$agent/task" | wc -l)
echo "agent $agent: $count rendezvous connection, $threads threads"
for r in 0 1 2 3 4 5; do
  line=$(sed -n "s/^work\.$r: peers=//p" "$WORK/exec.out")
  [ "$(echo "$line" | tr ',' '\n' | grep -c ':')" -eq 6 ] ||
    fail "work.$r was handed '$line', expected six addresses"
done
wait_for_child 30 "$agent"
[ "$status" -eq 0 ] || fail "slipway-exec exited with $status"
echo PASS
