#!/usr/bin/env bash
# A torch world on Slurm loses a rank's agent (SIGKILL of its slipway-exec
# and command, as a crashed node daemon would leave it): the rank is lost
# (its agent vanishes from the rendezvous), the surviving rank is stopped at
# once (it would otherwise sit in its collective), and the whole world
# starts again as epoch 1, the lost rank away from the host it was lost on;
# the program completes. (Whole hosts killed or cut off: host_lost.sh,
# host_cut_off.sh.)
source "$(dirname "$0")/lib.sh"
/usr/bin/python3 -c "import torch.distributed" || fail "python3-torch is not installed"
srun -N3 -p cpu --program="$(topology world_agent_lost)" >out 2>&1 &
launcher=$!
trap 'kill_launcher "$launcher"; scancel --name=world-lost 2>/dev/null || true
      pkill -9 -f "$MARKER" || true' EXIT
if ! (wait_until 90 bash -c "[ \$(grep -sc '^trainer\.[01]: rank [01] epoch 0 on fn[1-3] formed$' out) -eq 2 ]"); then
  cat out
  fail "the world did not form"
fi
lost=$(sed -n 's/^trainer\.1: rank 1 epoch 0 on \(fn[1-3]\) formed$/\1/p' out)
kill_agent 'trainer\.1'
wait_for_launcher "$launcher" out
[ "$status" -eq 0 ] || fail "srun --program exited $status"
expect_line out "trainer\.1 lost on $lost"
expect_line out "the world of trainer\.1 \(killed by signal 9 \(Killed\)\) restarts as epoch 1"
for r in 0 1; do expect_line out "^trainer\.$r: rank $r epoch 1 on fn[1-3] formed$"; done
for r in 0 1; do expect_line out "^trainer\.$r: rank $r epoch 1 trained$"; done
expect_no_line out "^trainer\.1: rank 1 epoch 1 on $lost formed$"
# The survivor's exit was the launcher's doing: not reported as a failure.
expect_no_line out "trainer\.0 exited with status"
echo PASS
