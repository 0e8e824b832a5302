# shellcheck shell=bash disable=SC1083  # double-brace placeholders: the generator fills them in (this line is not copied)
# ---- body (slipway's jobscripts/program-body.sh) -------------------------
# Runs the program with `slipway launch` inside this allocation, as the run
# of this job: a requeued job resumes the same run. What Slurm sends, and
# what this script does with it (docs/slurm.md, "Requeue and preemption"):
# - SIGUSR1 {{GRACE}} s before the time limit (--signal above), or when the
#   job is preempted on a cluster with preempt_send_user_signal: passed on
#   to slipway, which gives every task a checkpoint notice, then stops the
#   program;
# - SIGTERM (scontrol requeue, scancel, the time limit, the end of a
#   preemption's GraceTime): Slurm signals every process of the job, slipway
#   included, and ends or requeues the job itself; passed on only when it
#   came to this shell alone (`scancel --batch --signal=TERM`: the job still
#   runs), and never followed by a requeue from here.
# Once slipway has exited, with --requeue: a job being preempted is
# requeued now (Slurm requeues a preempted job only if it still runs when
# its GraceTime ends: one whose script ended is complete); a job stopped
# for its time limit is requeued while SLURM_RESTART_COUNT is below
# {{MAX_REQUEUES}}.
set -u
slipway={{SLIPWAY}}
topology={{TOPOLOGY}}
requeue={{REQUEUE}}
max_requeues={{MAX_REQUEUES}}

# The run's job: an array task is ARRAY_JOB_ID_TASK_ID (the array's own id,
# which one of its tasks carries as SLURM_JOB_ID, names every task).
if [ -n "${SLURM_ARRAY_TASK_ID:-}" ]; then
  job=${SLURM_ARRAY_JOB_ID}_${SLURM_ARRAY_TASK_ID}
else
  job=$SLURM_JOB_ID
fi

# job_field NAME: the field NAME of this job in `scontrol show job` (empty
# when scontrol cannot tell).
job_field() {
  timeout 20 scontrol show job -o "$job" 2>/dev/null | tr ' ' '\n' | sed -n "s/^$1=//p" | head -n 1
}

launcher=
warned=0
terminated=0
on_warning() {
  warned=1
  echo "slipway: SIGUSR1 (the time limit is near, or a preemption): checkpoint notice to program {{PROGRAM}}" >&2
  if [ -n "$launcher" ]; then kill -USR1 "$launcher" 2>/dev/null; fi
}
on_terminate() {
  terminated=1
  if [ "$(job_field JobState)" = RUNNING ]; then
    echo "slipway: SIGTERM: stopping program {{PROGRAM}}" >&2
    if [ -n "$launcher" ]; then kill -TERM "$launcher" 2>/dev/null; fi
  else
    echo "slipway: SIGTERM: Slurm is ending or requeueing job $job and signalled slipway itself" >&2
  fi
}
trap on_warning USR1
trap on_terminate TERM

"$slipway" launch "$topology" &
launcher=$!
# A trapped signal interrupts `wait` (status > 128): wait again until slipway
# has exited, then take its own status if the interrupted wait hid it (bash
# answers 127, or -1 when a trap's own commands reaped slipway, when it has
# no status left to give).
while :; do
  wait "$launcher"
  status=$?
  kill -0 "$launcher" 2>/dev/null || break
done
if [ "$status" -gt 128 ]; then
  wait "$launcher" 2>/dev/null
  last=$?
  if [ "$last" -ge 0 ] && [ "$last" -le 255 ] && [ "$last" -ne 127 ]; then status=$last; fi
fi

if [ "$requeue" = 1 ] && [ "$terminated" = 0 ]; then
  preempted=$(job_field PreemptTime)
  restarts=${SLURM_RESTART_COUNT:-0}
  if [ "$status" -ne 0 ] && [ -n "$preempted" ] && [ "$preempted" != None ]; then
    echo "slipway: job $job is being preempted (since $preempted): requeueing it now" >&2
    scontrol requeue "$job"
  elif [ "$warned" = 1 ] && [ "$restarts" -lt "$max_requeues" ]; then
    echo "slipway: requeueing job $job (restart $((restarts + 1)) of $max_requeues)" >&2
    scontrol requeue "$job"
  elif [ "$warned" = 1 ]; then
    echo "slipway: job $job was requeued $restarts times already: not again" >&2
  fi
fi
exit "$status"
