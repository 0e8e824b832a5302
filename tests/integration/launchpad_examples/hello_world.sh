#!/usr/bin/env bash
# examples/launchpad/hello_world.py (Launchpad's hello_world, ported by its
# imports) run as a user runs it: `python3 hello_world.py` launches it
# locally under slipway; its one node prints its line and the program ends 0.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/example_lib.sh"

run_program "$root/examples/launchpad/hello_world.py"
[ "$status" -eq 0 ] || fail "the program exited with status $status"
expect '^hello_printer\.0: Hello World!!!$' "the node did not print its line"
expect "program 'hello_world' finished: all tasks finished" "no clean finish"
echo "$script: ok"
