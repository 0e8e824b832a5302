#!/usr/bin/env bash
# Issue 15 on the Slurm test cluster: the actor/learner example (Python
# clients of a two-shard replay node, a queue, prioritized sampling) under
# `srun --program` across three hosts, and the C++ client test program
# against two shards placed on other hosts than itself.
source "$(dirname "$0")/lib.sh"
: "${SLIPWAY_REPLAY_CLIENT:?path of slipway_test_replay_client}"
# The test cluster's hosts are network namespaces of one machine: UCX sees
# one host and picks its shared-memory transports, whose wake-up signals
# (unix sockets) do not cross network namespaces, so a sleeping peer on
# another "host" is never woken and the program stalls. Real hosts never
# share memory: over TCP, as between real hosts.
export UCX_TLS=tcp

run_logged example srun -N3 -p cpu --program="$SLIPWAY_SOURCE_DIR/examples/actor_learner.toml"
[ "$status" -eq 0 ] || fail "srun --program of the actor/learner example exited $status"
expect_line example "^learner\.0: learned weight "
expect_line example "^replay\.[01]: slipway-replay: serving replay\.[01]"
expect_line example "program 'actor-learner' finished"

sed "s|@CLIENT@|$SLIPWAY_REPLAY_CLIENT|" "$(topology replay_shards)" >"$PWD/replay_shards_client.toml"
run_logged shards srun -N3 -p cpu --program="$PWD/replay_shards_client.toml"
[ "$status" -eq 0 ] || fail "srun --program of the C++ client against two shards exited $status"
expect_line shards "^client\.0: replay client test: ok"
expect_line shards "^replay\.1: slipway-replay: serving replay\.1"
echo PASS
