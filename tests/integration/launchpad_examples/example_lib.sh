# shellcheck shell=bash
# Shared by the scripts of tests/integration/launchpad_examples, on top of
# the courier examples' helpers (../channels/example_lib.sh: $root, $runs,
# $script, expect, fail): run_program FILE [ARGS...] runs a Python program
# file with /usr/bin/python3 as a user would (sw.launch, local launch by
# default) in $runs, with the source tree's python/ on PYTHONPATH, the
# slipway under test on PATH and $runs as the run root and TMPDIR; its
# output goes to $output and its exit status to $status.
: "${SLIPWAY_COURIER_LIBRARY:?path of libslipway-courier.so}"
# shellcheck source=../channels/example_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../channels/example_lib.sh"
export SLIPWAY SLIPWAY_COURIER_LIBRARY
export SLIPWAY_RUN_ROOT=$runs
PATH="$(dirname "$SLIPWAY"):$PATH"
export PATH
export PYTHONPATH="$root/python${PYTHONPATH:+:$PYTHONPATH}"
# A local launch leaves its topology in a temporary directory of its own
# (the launching process becomes `slipway run`): keep those under $runs.
export TMPDIR=$runs

run_program() {
  status=0
  output=$(cd "$runs" && timeout 240 /usr/bin/python3 "$@" 2>&1) || status=$?
  printf '%s\n' "$output"
}
