#!/usr/bin/env bash
# A node that raises stops the program: node_raises.py's worker raises after
# one call to its server; `python3 node_raises.py` (local launch) must end
# non-zero, with the worker's traceback in the output and the Python file
# and line that made the worker node, and no task of the program left.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/example_lib.sh"
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

line=$(grep -n '# the failing node' "$here/node_raises.py" | cut -d: -f1)
run_program "$here/node_raises.py"
[ "$status" -ne 0 ] || fail "the program succeeded although its worker raised"
[ "$status" -ne 124 ] || fail "the program did not stop after its worker raised"
expect '^worker\.0: worker: server answered 42$' "the worker's call did not reach the server"
expect '^worker\.0: Traceback \(most recent call last\)' "no traceback from the worker"
expect "^worker\.0: +raise ValueError\('worker gives up on purpose'\)$" "the traceback lacks the raising line"
expect '^worker\.0: ValueError: worker gives up on purpose$' "the worker's exception is not shown"
expect "defined at $here/node_raises\.py:$line\)" \
  "the line that made the worker node (node_raises.py:$line) is not named"
expect "program 'node_raises' failed: task worker\.0 exited with status 1" "the failure is not the worker's"
if pgrep -f -- "--module $here/node_raises.py" >/dev/null; then
  fail "a task of the program is still running"
fi
echo "$script: ok"
