#!/usr/bin/env bash
# Issue 27 item 6: a program made and launched inside main() (Launchpad's
# shape, self_launch.py) whose node raises. Launched as a user does
# (`python3 self_launch.py`, nodes shipped with cloudpickle) and from its
# topology (`--launch=toml`, then `slipway run`: each task calls main()
# again, whose sw.launch() must run the task's node): each way the program
# fails once, the exception is reported once, one run directory is made
# (no nested program) and no task is left. Before the fix each task
# launched the program again, without end, until the time limit.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/example_lib.sh"
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
line=$(grep -n '# the boom node' "$here/self_launch.py" | cut -d: -f1)

check_one_failure() {   # WHAT RUN_ROOT
  local what=$1 root=$2
  [ "$status" -ne 124 ] || fail "$what: still running after 90 s (the program launched itself again?)"
  [ "$status" -eq 1 ] || fail "$what: exit status $status, not 1"
  if grep -q '^boom\.0: boom\.0: \|^boom\.0: slipway: running program' <<<"$output"; then
    fail "$what: a task of the program launched a nested program"
  fi
  [ "$(grep -c '^boom\.0: RuntimeError: boom on purpose$' <<<"$output")" -eq 1 ] ||
    fail "$what: the exception is not reported exactly once"
  [ "$(grep -c "^boom\.0: slipway: node 'boom' (defined at $here/self_launch\.py:$line) failed: RuntimeError: boom on purpose$" <<<"$output")" -eq 1 ] ||
    fail "$what: the node's failure (self_launch.py:$line) is not reported exactly once"
  [ "$(grep -c "program 'failing' failed: task boom\.0 exited with status 1" <<<"$output")" -eq 1 ] ||
    fail "$what: the program did not fail once, through boom.0"
  local made
  made=$(find "$root" -mindepth 1 -maxdepth 1 -type d -name 'failing-*' | wc -l)
  [ "$made" -eq 1 ] || fail "$what: $made run directories of 'failing' under $root, not 1"
  if pgrep -f -- "--module $here/self_launch.py" >/dev/null; then
    fail "$what: a task of the program is still running"
  fi
}

# As a user runs it: python3 self_launch.py.
mkdir -p "$runs/local"
status=0
output=$(cd "$runs" && SLIPWAY_RUN_ROOT=$runs/local timeout 90 /usr/bin/python3 "$here/self_launch.py" 2>&1) ||
  status=$?
printf '%s\n' "$output"
check_one_failure "python3 self_launch.py" "$runs/local"

# From its topology: tasks that rebuild the program by calling main() again.
status=0
output=$(cd "$runs" && /usr/bin/python3 "$here/self_launch.py" --launch=toml 2>&1) || status=$?
if [ "$status" -ne 0 ] || [ ! -f "$runs/failing.toml" ]; then fail "--launch=toml: status $status: $output"; fi
grep -q -- '"--program-factory", "main"' "$runs/failing.toml" || fail "the topology's tasks do not call main()"
mkdir -p "$runs/toml"
status=0
output=$(cd "$runs" && SLIPWAY_RUN_ROOT=$runs/toml timeout 90 "$SLIPWAY" run failing.toml 2>&1) || status=$?
printf '%s\n' "$output"
check_one_failure "slipway run failing.toml" "$runs/toml"
echo "$script: ok"
