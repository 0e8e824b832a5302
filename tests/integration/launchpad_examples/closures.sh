#!/usr/bin/env bash
# Issue 27 item 6: nodes shipped as Launchpad ships them (cloudpickle):
# `python3 closures.py --base=4` runs a closure over main()'s locals that
# calls a CourierNode of a class made inside main(), a lambda, and a group
# of per-replica lambdas; every task must see the values of the launch (the
# stamp it printed, --base=4 from its command line) and the program end 0.
# Before the fix the tasks re-ran main() (which launched again, without end).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/example_lib.sh"
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

status=0
output=$(cd "$runs" && timeout 120 /usr/bin/python3 "$here/closures.py" --base=4 2>&1) || status=$?
printf '%s\n' "$output"
[ "$status" -eq 0 ] || fail "closures.py exited with status $status"
stamp=$(sed -n 's/^launch: stamp \([0-9a-f]*\)$/\1/p' <<<"$output")
[ -n "$stamp" ] || fail "the launch printed no stamp"
expect "^closure\.0: closure: stamp $stamp base 4 add\(2\) 6$" "the closure did not see the launch's values"
expect "^lambda\.0: lambda: stamp $stamp squares \[0, 1, 4, 9\]$" "the lambda did not see the launch's values"
expect "^worker\.0: worker: 0 of stamp $stamp$" "worker 0's lambda did not run as launched"
expect "^worker\.1: worker: 1 of stamp $stamp$" "worker 1's lambda did not run as launched"
[ "$(grep -c 'running program' <<<"$output")" -eq 1 ] || fail "more than one program ran"
expect "program 'closures' finished" "the program did not finish cleanly"
echo "$script: ok"
