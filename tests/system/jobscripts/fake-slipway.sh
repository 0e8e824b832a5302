#!/bin/bash
# Stand-in for `slipway launch` inside generated batch scripts: appends
# "start <restart count> <array task> <args>" to $FAKE_SLIPWAY_LOG (default:
# next to the topology) and, when $FAKE_SLIPWAY_PID is set, writes its pid
# there; then waits. On SIGUSR1 or SIGTERM it appends "stopped USR1 <array
# task>" or "stopped TERM <array task>" and exits 128 + the signal, as
# slipway does after stopping its program on one; on SIGHUP it appends
# "finished" and exits 0 (a program that ended by itself). Also used by
# tests/integration/jobscripts.
log=${FAKE_SLIPWAY_LOG:-$(dirname "${2:-.}")/fake-slipway.log}
task=${SLURM_ARRAY_TASK_ID:--}
echo "start ${SLURM_RESTART_COUNT:-0} $task $*" >>"$log"
trap 'echo "stopped USR1 $task" >>"$log"; exit 138' USR1
trap 'echo "stopped TERM $task" >>"$log"; exit 143' TERM
trap 'echo finished >>"$log"; exit 0' HUP
# The pid is told once the signals are handled.
if [ -n "${FAKE_SLIPWAY_PID:-}" ]; then echo $$ >"$FAKE_SLIPWAY_PID"; fi
while :; do
  sleep 0.2 &
  wait $!
done
