#!/bin/bash
# Stand-in for `slipway launch` inside generated batch scripts: appends
# "start <restart count> <array task> <args>" to $FAKE_SLIPWAY_LOG (default:
# next to the topology) and, when $FAKE_SLIPWAY_PID is set, writes its pid
# there; then waits. On SIGUSR1 or SIGTERM it appends "stopped USR1" or
# "stopped TERM" and exits 128 + the signal, as slipway does after stopping
# its program on one; on SIGHUP it appends "finished" and exits 0 (a
# program that ended by itself). Also used by tests/integration/jobscripts.
log=${FAKE_SLIPWAY_LOG:-$(dirname "${2:-.}")/fake-slipway.log}
echo "start ${SLURM_RESTART_COUNT:-0} ${SLURM_ARRAY_TASK_ID:--} $*" >>"$log"
if [ -n "${FAKE_SLIPWAY_PID:-}" ]; then echo $$ >"$FAKE_SLIPWAY_PID"; fi
trap 'echo "stopped USR1" >>"$log"; exit 138' USR1
trap 'echo "stopped TERM" >>"$log"; exit 143' TERM
trap 'echo finished >>"$log"; exit 0' HUP
while :; do
  sleep 0.2 &
  wait $!
done
