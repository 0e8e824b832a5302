#!/usr/bin/env bash
# Runs a `type = "replay"` node (slipway-replay, found next to slipway) and
# the C++ client test program under `slipway run`:
#   replay_client.sh basic     tables, queue, writer, sampler, priorities, leases
#   replay_client.sh shards    two shards: spread, routing by key
#   replay_client.sh work      a worker dies holding a lease; its relaunch gets the job back
#   replay_client.sh restart   checkpoint, SIGKILL of the server, relaunch and restore
#   replay_client.sh stats     the shard's replay/stats key and a busy task's usage key
#                              (every task under slipway-exec: SLIPWAY_INLINE_TASKS=0)
#   replay_client.sh c_abi     the C ABI (replay.h) through its C++ wrapper, linked to libslipway-courier.so
# Needs SLIPWAY, SLIPWAY_REPLAY_BIN and SLIPWAY_REPLAY_CLIENT (built programs).
set -euo pipefail
: "${SLIPWAY:?path of the slipway binary}"
: "${SLIPWAY_REPLAY_BIN:?path of slipway-replay}"
: "${SLIPWAY_REPLAY_CLIENT:?path of slipway_test_replay_client}"
mode=${1:-basic}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export UCX_NET_DEVICES=${UCX_NET_DEVICES:-lo}
# shellcheck source=../../lib/checks.sh
source "$(dirname "${BASH_SOURCE[0]}")/../../lib/checks.sh"  # fail

cat >"$work/replay.toml" <<TOML
[program]
name = "replay-$mode-$$"

[node.replay]
type = "replay"
max_retries = 1
replicas = $([ "$mode" = shards ] && echo 2 || echo 1)

[node.replay.tables.experience]
max_size = 1000
rate_limiter = { min_size = 3 }

[node.replay.tables.uniform]
max_size = 1000

[node.replay.tables.heap]
sampler = "max_heap"

[node.replay.tables.tasks]
kind = "queue"
max_size = 100

[node.replay.tables.empty_queue]
kind = "queue"
max_size = 10

[node.replay.tables.jobs]
kind = "work"
max_size = 10
lease = "60s"

[node.replay.checkpoint]
path = "$work/ckpt"

[node.client]
command = ["$SLIPWAY_REPLAY_CLIENT", "$mode", "$SLIPWAY_REPLAY_BIN"]
handles = ["replay"]
max_retries = $([ "$mode" = work ] && echo 1 || echo 0)
TOML
if [ "$mode" = stats ]; then
  # A busy loop holding 64 MiB, under a shell that waits for it.
  cat >>"$work/replay.toml" <<'TOML'

[node.burner]
command = ["bash", "-c", "python3 -c 'data = b\"x\" * (64 << 20)\nwhile True: pass' & wait"]
daemon = true
TOML
  export SLIPWAY_INLINE_TASKS=0
fi

status=0
output=$(timeout 240 "$SLIPWAY" run "$work/replay.toml" --run-root "$work/runs" 2>&1) || status=$?
printf '%s\n' "$output"
[ "$status" -eq 0 ] || fail "slipway run exited with status $status"
grep -q "^client\.0: replay client test: ok" <<<"$output" || fail "the client test did not pass"
if [ "$mode" = work ]; then
  grep -q "^client\.0: attempt 0 dies holding the lease" <<<"$output" || fail "attempt 0 did not die holding its lease"
elif [ "$mode" = restart ]; then
  grep -Eq "^replay\.0: slipway-replay: loaded checkpoint $work/ckpt/replay\.0/checkpoint-0+1\.ckpt: 6 tables, 20 items, [0-9]+ bytes of data" <<<"$output" ||
    fail "the relaunched shard did not say what it loaded"
elif [ "$mode" = shards ]; then
  grep -q "^replay\.1: slipway-replay: serving replay\.1" <<<"$output" || fail "the second shard did not serve"
else
  grep -Eq "^replay\.0: slipway-replay: no checkpoint under $work/ckpt/replay\.0: starting empty" <<<"$output" ||
    fail "the shard did not say it started empty"
fi
echo "replay_client $mode: ok"
