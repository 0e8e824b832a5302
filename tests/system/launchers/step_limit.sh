#!/usr/bin/env bash
# Slurm's MaxStepCount on a cluster that sets it to 4 (CLUSTER limits):
# a program whose first launch needs more steps is refused at plan time
# with both numbers, before any step or task starts; a program whose
# restarts would pass the limit is told so by the controller, per attempt,
# and fails once its retries are spent (its other node is stopped).
source "$(dirname "$0")/lib.sh"
scontrol show config >config
expect_line config '^MaxStepCount +=[[:space:]]*4[[:space:]]*$'

run_logged out "$SLIPWAY" launch --srun-arg=-N3 --srun-arg=-pcpu "$(topology steps_too_many)"
[ "$status" -ne 0 ] || fail "a program of 5 steps ran in a job allowed 4"
expect_line out "program 'too_many_steps' cannot run in job [0-9]+: it starts 5 job steps, and this cluster lets a job start at most 4 \(MaxStepCount in slurm.conf\)"
expect_no_line out "running program"
if compgen -G "$MARKER.started.*" >/dev/null; then fail "a task started: $(ls "$MARKER".started.*)"; fi

run_logged out2 "$SLIPWAY" launch --srun-arg=-N2 --srun-arg=-pcpu "$(topology steps_restarts)"
[ "$status" -ne 0 ] || fail "a program whose task failed every attempt succeeded"
expect_line out2 "running program 'restart_steps' \(2 tasks, 2 job steps\)"
# Steps 0 and 1 at start, f's retries in steps 2 and 3; then no step is left.
expect_line out2 "^f\.0: f attempt 2 step [23]$"
expect_line out2 "f\.0: job [0-9]+ has started 4 job steps, the most this cluster allows a job \(MaxStepCount 4\): no step is left for f\.0"
expect_no_line out2 "f attempt 3"
expect_no_line out2 "Step limit|step limit"
expect_line out2 "program 'restart_steps' failed"
expect_line out2 "w\.0 .*(stopped|signal|143)"
echo PASS
