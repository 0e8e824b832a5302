#!/bin/bash
# Stand-in for `slipway launch` inside generated batch scripts: appends
# "start <restart count> <args>" to $FAKE_SLIPWAY_LOG (default: next to the
# topology), then waits; on SIGTERM appends "stopped" and exits 0.
log=${FAKE_SLIPWAY_LOG:-$(dirname "${2:-.}")/fake-slipway.log}
echo "start ${SLURM_RESTART_COUNT:-0} $*" >>"$log"
trap 'echo stopped >>"$log"; exit 0' TERM
while :; do sleep 1; done
