#!/usr/bin/env bash
# An elastic torch node (replicas = "2:3", one rank per host) loses a host
# and no other host has room for its rank: the node shrinks to 2 and its
# world completes at that size, instead of failing. MODE cut: the link of
# rank 2's host is set down (no FIN: the heartbeats tell); MODE agent: rank
# 1's agent and command are killed (SIGKILL): the shrink still drops rank 2
# (ranks stay dense), and the world of 2 runs on the two hosts left.
# The shrink is decided as the loss is heard: the world goes from epoch 0
# at 3 straight to epoch 1 at 2, with no epoch at 3 in between (one that
# could not form, the lost rank placed again; issue 27, item 12).
#   elastic_shrink.sh cut|agent
source "$(dirname "$0")/lib.sh"
mode=$1
/usr/bin/python3 -c "import torch.distributed" || fail "python3-torch is not installed"
srun -N3 -p cpu --program="$(topology elastic_shrink)" >out 2>&1 &
launcher=$!
ns=""
trap 'kill_launcher "$launcher"; scancel --name=elastic-shrink 2>/dev/null || true
      pkill -9 -f "$MARKER" || true
      if [ -n "$ns" ]; then ip -n "$ns" link set eth0 up 2>/dev/null || true; restart_host "$host"; fi' EXIT
formed() { [ "$(grep -sc "^trainer\.[012]: rank [012] world 3 epoch 0 on fn[1-3] formed$" out)" = 3 ]; }
if ! (wait_until 120 formed); then
  cat out
  fail "the world of 3 did not form"
fi
case $mode in
  cut)
    host=$(sed -n 's/^trainer\.2: rank 2 world 3 epoch 0 on \(fn[1-3]\) formed$/\1/p' out)
    ns="sw$SLIPWAY_CLUSTER_NET_ID-$host"
    ip -n "$ns" link set eth0 down
    lost=trainer.2 ;;
  agent)
    host=$(sed -n 's/^trainer\.1: rank 1 world 3 epoch 0 on \(fn[1-3]\) formed$/\1/p' out)
    kill_agent 'trainer\.1'
    lost=trainer.1 ;;
  *) fail "mode is cut or agent, not '$mode'" ;;
esac
wait_for_launcher "$launcher" out
[ "$status" -eq 0 ] || fail "srun --program exited $status"
expect_line out "$lost lost on $host"
expect_line out "trainer shrinks from 3 to 2 replicas \(no host has room for trainer\.[12]\): its world restarts as epoch 1 with 2 replica\(s\)"
for r in 0 1; do
  expect_line out "^trainer\.$r: rank $r world 2 epoch 1 trained$"
  expect_line out "^slipway: restarting trainer\.$r \(attempt 1, epoch 1 of its world\)$"
done
# Epoch 1 is the world of 2: rank 2 never starts again, no later epoch.
expect_no_line out "^slipway: restarting trainer\.2 "
expect_no_line out "epoch [2-9] of its world|restarts as epoch [2-9]"
expect_no_line out "^trainer\.[01]: rank [01] world 2 epoch [1-9] on $host formed$"
expect_no_line out "^trainer\.2: rank 2 world 2"
expect_no_line out "program 'elastic-shrink' failed"
echo PASS
