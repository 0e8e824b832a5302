#!/usr/bin/env bash
# --launch=toml on each example of examples/launchpad: it writes the
# program's topology (NAME.toml in the current directory) without running
# anything, and `slipway validate` accepts it; each node's comment names the
# Python line that made it.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/example_lib.sh"

check() {  # EXAMPLE PROGRAM_NAME NODE...
  local example=$1 name=$2 node line
  shift 2
  run_program "$root/examples/launchpad/$example.py" --launch=toml
  [ "$status" -eq 0 ] || fail "$example --launch=toml exited with status $status"
  [ -f "$runs/$name.toml" ] || fail "$example --launch=toml wrote no $name.toml"
  "$SLIPWAY" validate "$runs/$name.toml" || fail "slipway validate refused $name.toml"
  for node in "$@"; do
    # the line of the add_node (or group) call that names the node
    line=$(awk -v label="label='$node'" -v group="group('$node')" '
      /add_node\(|group\(/ { call = NR }
      index($0, label) || index($0, group) { print call; exit }' "$root/examples/launchpad/$example.py")
    grep -q "^# node '$node': defined at .*/$example\.py:$line " "$runs/$name.toml" ||
      fail "$name.toml does not name $example.py:$line for node $node"
  done
  if grep -q 'running program' <<<"$output"; then fail "$example --launch=toml ran the program"; fi
}

check hello_world hello_world hello_printer
check consumer_producers consumer_producers producer consumer
check batched_inference batching server clients
check program_wait program_wait sleep wait_for_stop stop_event register_stop_handler stop_program
grep -q '^replicas = 2$' "$runs/consumer_producers.toml" || fail "the producer group is not 2 replicas"
echo "$script: ok"
