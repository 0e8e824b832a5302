#!/usr/bin/env bash
# examples/launchpad/program_wait.py (Launchpad's program_wait, ported by its
# imports) run locally: one node calls sw.stop() after 4 s; the others see
# the stop through wait_for_stop(timeout), wait_for_stop(), stop_event() and
# a stop handler, log their clean termination and end by themselves (none
# killed), and the program ends 0.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/example_lib.sh"

run_program "$root/examples/launchpad/program_wait.py"
[ "$status" -eq 0 ] || fail "the program exited with status $status"
expect '^sleep\.0: Sleeping again\.\.\.$' "wait_for_stop(1) never timed out before the stop"
expect '^sleep\.0: Clean termination of _sleep node$' "wait_for_stop(1) did not see the stop"
expect '^wait_for_stop\.0: Clean termination of _wait_for_stop node$' "wait_for_stop() did not see the stop"
expect '^stop_event\.0: Clean termination of _stop_event node$' "stop_event() was not set"
expect '^register_stop_handler\.0: _stop_handler called$' "the stop handler was not called"
expect '^register_stop_handler\.0: Clean termination of _register_stop_handler node$' \
  "the node with a stop handler did not end cleanly"
expect "program 'program_wait' finished: stop requested by stop_program\.0" \
  "the program did not end through sw.stop()"
if grep -q 'killed by signal' <<<"$output"; then fail "a node was killed instead of ending by itself"; fi
echo "$script: ok"
