#!/usr/bin/env bash
# Issue 16 on the Slurm test cluster: Launchpad's consumer_producers, ported
# by its imports (examples/launchpad/consumer_producers.py), launched with
# --launch=slurm inside a three-host allocation: sw.launch writes the
# topology where every host reads it and execs `slipway launch`; the
# consumer calls each producer (courier RPC across hosts) for 10 steps, then
# sw.stop() ends the program.
source "$(dirname "$0")/lib.sh"
# Hosts here are network namespaces of one machine: courier over TCP, as
# between real hosts (see replay_cluster.sh).
export UCX_TLS=tcp
PATH="$(dirname "$SLIPWAY"):$PATH"
# The user's own python3 finds the package as after `cmake --install`
# (slipway.pth) would let it; tasks get it from slipway itself.
PYTHONPATH="$SLIPWAY_SOURCE_DIR/python${PYTHONPATH:+:$PYTHONPATH}"
export PATH PYTHONPATH

run_logged out salloc -N3 -n12 -p cpu /usr/bin/python3 \
  "$SLIPWAY_SOURCE_DIR/examples/launchpad/consumer_producers.py" --launch=slurm --num_producers=3
[ "$status" -eq 0 ] || fail "the program exited $status"
steps=$(grep -cxF "consumer.0: Results: [0, 1, 2]" out || true)
[ "$steps" -eq 10 ] || fail "the consumer logged $steps steps with results [0, 1, 2], not 10"
expect_line out "program 'consumer_producers' finished: stop requested by consumer\.0"
expect_line out "in job [0-9]+"
echo PASS
