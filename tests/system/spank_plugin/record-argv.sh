#!/bin/sh
# Stand-in for the slipway executable in the hand-over tests: prints what it
# was started with (one "arg=[...]" line per argument) and the state the
# plugin promises: guard variable, blocked signals, working directory and,
# inside an allocation, the job id.
for a in "$@"; do printf 'arg=[%s]\n' "$a"; done
printf 'guard=%s\n' "${SLIPWAY_SPANK_REEXEC:-}"
printf 'sigblk=%s\n' "$(awk '/^SigBlk:/ {print $2}' /proc/self/status)"
printf 'cwd=%s\n' "$PWD"
printf 'job=%s\n' "${SLURM_JOB_ID:-}"
