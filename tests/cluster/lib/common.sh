# shellcheck shell=bash
# shellcheck disable=SC2034  # the CL_* paths are used by the files that source this one
# Shared helpers of the test-cluster harness (sourced by cluster.sh):
# logging, bounded waits, pid bookkeeping and the cluster's on-disk layout.
# Every function here is safe to call on a half-built cluster.

log() { printf 'slipway-cluster: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

# Layout of a cluster directory (all paths private to one cluster).
cluster_paths() {
  local d=$1
  CL_DIR=$d
  CL_ETC=$d/etc
  CL_CONF=$d/etc/slurm.conf
  CL_LOG=$d/log
  CL_RUN=$d/run
  CL_STATE=$d/state
  CL_SPOOL=$d/spool
  CL_NODES=$d/nodes
  CL_MUNGE=$d/munge
  CL_ENV=$d/env.sh
}

# wait_until SECONDS DESCRIPTION CMD... : poll CMD every 0.5 s until it
# succeeds; return 1 (after logging) when SECONDS have passed.
wait_until() {
  local limit=$1 what=$2; shift 2
  local deadline=$((SECONDS + limit))
  while ! "$@" >/dev/null 2>&1; do
    if ((SECONDS >= deadline)); then
      log "timed out after ${limit}s waiting for ${what}"
      return 1
    fi
    sleep 0.5
  done
}

# pid_matches PID WORD: the process PID is alive and its command line
# contains WORD (guards against killing a recycled pid).
pid_matches() {
  local pid=$1 word=$2
  [[ $pid =~ ^[0-9]+$ ]] || return 1
  [[ -r /proc/$pid/cmdline ]] || return 1
  tr '\0' ' ' <"/proc/$pid/cmdline" | grep -qF -- "$word"
}

# stop_pids GRACE PID...: SIGTERM, wait up to GRACE seconds, then SIGKILL.
stop_pids() {
  local grace=$1; shift
  local pids=() p
  for p in "$@"; do [[ $p =~ ^[0-9]+$ ]] && kill -0 "$p" 2>/dev/null && pids+=("$p"); done
  ((${#pids[@]})) || return 0
  kill -TERM "${pids[@]}" 2>/dev/null || true
  local deadline=$((SECONDS + grace)) alive
  while ((SECONDS < deadline)); do
    alive=0
    for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null && alive=1; done
    ((alive)) || return 0
    sleep 0.2
  done
  kill -KILL "${pids[@]}" 2>/dev/null || true
  sleep 0.2
}

# stop_pidfile FILE WORD: stop the daemon recorded in FILE if it is still
# the process we started (its command line contains WORD).
stop_pidfile() {
  local file=$1 word=$2 pid
  [[ -r $file ]] || return 0
  pid=$(head -n1 "$file" 2>/dev/null || true)
  if pid_matches "$pid" "$word"; then
    stop_pids 10 "$pid"
  fi
  rm -f "$file"
}
