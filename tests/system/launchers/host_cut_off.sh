#!/usr/bin/env bash
# A host cut off from the network (its link set down: no FIN, only the
# silence of heartbeats tells) never runs its old attempt beside the new
# one: the rendezvous declares the agent lost at its heartbeat budget and
# the replica comes back on another host, while the cut-off agent, hearing
# nothing from the rendezvous for 2.5 heartbeat intervals, kills its task
# first. The program completes; the link comes back up afterwards.
source "$(dirname "$0")/lib.sh"
ns="sw$SLIPWAY_CLUSTER_NET_ID-fn2"
"$SLIPWAY" launch --srun-arg=-N3 --srun-arg=-n6 --srun-arg=-pcpu "$(topology lost_host)" >out 2>&1 &
launcher=$!
trap 'ip -n "$ns" link set eth0 up 2>/dev/null || true; kill_launcher "$launcher"
      scancel --name=lost 2>/dev/null || true; pkill -9 -f "$MARKER" || true; restart_host fn2' EXIT
wait_until 60 bash -c "[ \$(pgrep -c -f '$MARKER') -ge 3 ]"
if ! (wait_until 30 grep -q "^spread.1: attempt 0 on fn2$" out); then
  cat out
  fail "spread.1 did not start on fn2"
fi
# The attempt-0 command of the host, by pid, seen from its namespace.
old=$(ip netns pids "$ns" | while read -r p; do
  if grep -qa -- "$MARKER" "/proc/$p/cmdline" 2>/dev/null; then echo "$p"; fi; done)
[ "$(echo "$old" | wc -w)" -eq 1 ] || fail "expected one command of spread.1 on fn2: $old"
cut_at=$SECONDS
ip -n "$ns" link set eth0 down
wait_until 60 grep -q "^spread.1: attempt 1 on fn[13]$" out
# By the time its replacement runs, the cut-off attempt is gone.
[ ! -e "/proc/$old" ] || fail "the cut-off attempt (pid $old) still runs beside its replacement, $((SECONDS - cut_at)) s after the cut"
echo "the replacement ran $((SECONDS - cut_at)) s after the cut; the old attempt was gone"
# The survivors' first attempts end too (killed), and are resubmitted.
pkill -9 -f "$MARKER" || true
wait_for_launcher "$launcher" out
[ "$status" -eq 0 ] || fail "slipway launch exited $status"
expect_line out "spread.1 lost on fn2"
expect_line out "program 'lost' finished"
echo PASS
