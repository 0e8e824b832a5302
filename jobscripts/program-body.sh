# shellcheck shell=bash disable=SC1083  # double-brace placeholders: the generator fills them in (this line is not copied)
# ---- body (slipway's jobscripts/program-body.sh) -------------------------
# Runs the program with `slipway launch` inside this allocation. Slurm sends
# SIGUSR1 to this script {{GRACE}} s before the time limit (--signal above):
# the program is then stopped gracefully (SIGTERM to slipway, which stops
# every task) and, when requeueing was asked for, the whole job is requeued
# to run the program again, at most {{MAX_REQUEUES}} times.
set -u
slipway={{SLIPWAY}}
topology={{TOPOLOGY}}
requeue={{REQUEUE}}
max_requeues={{MAX_REQUEUES}}

launcher=
time_is_up=0
on_time_limit() {
  time_is_up=1
  echo "slipway: the time limit is near: stopping program {{PROGRAM}}" >&2
  if [ -n "$launcher" ]; then kill -TERM "$launcher" 2>/dev/null; fi
}
trap on_time_limit USR1

"$slipway" launch "$topology" &
launcher=$!
# A trapped signal interrupts `wait` (status > 128): wait again until slipway
# has exited, then take its own status if the interrupted wait hid it.
while :; do
  wait "$launcher"
  status=$?
  kill -0 "$launcher" 2>/dev/null || break
done
if [ "$status" -gt 128 ]; then
  wait "$launcher" 2>/dev/null
  last=$?
  if [ "$last" -ne 127 ]; then status=$last; fi
fi

if [ "$time_is_up" = 1 ] && [ "$requeue" = 1 ]; then
  restarts=${SLURM_RESTART_COUNT:-0}
  if [ "$restarts" -lt "$max_requeues" ]; then
    echo "slipway: requeueing job $SLURM_JOB_ID (restart $((restarts + 1)) of $max_requeues)" >&2
    scontrol requeue "$SLURM_JOB_ID"
  else
    echo "slipway: job $SLURM_JOB_ID was requeued $restarts times already: not again" >&2
  fi
fi
exit "$status"
