#!/usr/bin/env bash
# Issue 16 on the Slurm test cluster: Launchpad's examples ported by their
# imports (examples/launchpad/), each launched with --launch=slurm inside a
# three-host allocation: sw.launch writes the topology where every host
# reads it and execs `slipway launch`. hello_world; consumer_producers (the
# consumer calls each producer through courier across hosts for 10 steps,
# then sw.stop() ends the program); batched_inference (two clients' calls
# gathered into batches by the server).
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

run_logged hello salloc -N3 -n12 -p cpu /usr/bin/python3 \
  "$SLIPWAY_SOURCE_DIR/examples/launchpad/hello_world.py" --launch=slurm
[ "$status" -eq 0 ] || fail "hello_world exited $status"
expect_line hello '^hello_printer\.0: Hello World!!!$'
expect_line hello "program 'hello_world' finished: all tasks finished"


run_logged batching salloc -N3 -n12 -p cpu /usr/bin/python3 \
  "$SLIPWAY_SOURCE_DIR/examples/launchpad/batched_inference.py" --launch=slurm
[ "$status" -eq 0 ] || fail "batched_inference exited $status"
for client in 0 1; do
  calls=$(grep -cE "^clients\.$client: Result: \[[0-9]+, [0-9]+\]$" batching || true)
  [ "$calls" -eq 10 ] || fail "clients.$client logged $calls results, not 10"
done
expect_line batching '^clients\.[01]: Result: \[100, 120\]$'
expect_line batching "program 'batching' finished: stop requested by clients\.[01]"
echo PASS
