#!/usr/bin/env bash
# The real multi-host Slurm test cluster on one machine (docs/slurm.md, "The test cluster"):
#   cluster.sh up     [DIR]   start munged, slurmctld and one slurmd per host
#   cluster.sh down   [DIR]   stop everything, remove namespaces and bridge
#   cluster.sh status [DIR]   sinfo/squeue of a running cluster
#   cluster.sh gc             tear down clusters whose controller is gone
# DIR defaults to $SLIPWAY_CLUSTER_DIR, else ${TMPDIR:-/tmp}/slipway-cluster-$$
# (then `up` prints it: pass it to `down`). After `up`, `source DIR/env.sh`
# exports SLURM_CONF and the SLIPWAY_CLUSTER_* variables for clients.
#
# Knobs (environment): SLIPWAY_CLUSTER_CPU_NODES (3, partition cpu),
# SLIPWAY_CLUSTER_GPU_NODES (2, partition gpu, 2 count-only GPUs each),
# SLIPWAY_CLUSTER_CPUS (CPUs each host declares, 4; up to 4096: large hosts
# for scale runs, through Slurm's config_overrides),
# SLIPWAY_SPANK_PLUGIN (path of slipway.so to load; none when unset),
# SLIPWAY_SPANK_PLUGIN_ARGS (its plugstack.conf arguments),
# SLIPWAY_CLUSTER_TIMEOUT (seconds for all hosts to become idle, 90),
# SLIPWAY_CLUSTER_PREEMPT (off; requeue: partitions low and high over the cpu
# hosts, high preempting by requeue with GraceTime=30 and JobRequeue=1;
# user-signal: the same plus preempt_send_user_signal; see lib/config.sh),
# SLIPWAY_CLUSTER_MAX_STEPS (Slurm's MaxStepCount, its default 40000 when
# unset).
#
# Exit status: 0 done; 77 skipped (not root, or network namespaces
# unavailable: the reason is printed loudly and written to DIR/skipped);
# anything else is a failure, after which the half-built cluster has been
# torn down again.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$HERE/lib/common.sh"
source "$HERE/lib/network.sh"
source "$HERE/lib/config.sh"
source "$HERE/lib/daemons.sh"

SKIP=77

skip() {
  local reason=$1
  printf '\n*** SKIPPED: the Slurm test cluster cannot run here: %s ***\n\n' "$reason" >&2
  mkdir -p "$CL_DIR" && echo "$reason" >"$CL_DIR/skipped"
  exit "$SKIP"
}

check_can_run() {
  ((EUID == 0)) || skip "not root (network namespaces, munged as user munge and slurmd need root)"
  local t
  for t in slurmctld slurmd munged munge ip nsenter unshare flock sinfo scontrol; do
    command -v "$t" >/dev/null || die "$t not found: install slurm-wlm, slurm-client, munge, iproute2, util-linux"
  done
  [[ -r /etc/munge/munge.key ]] || die "/etc/munge/munge.key missing (reinstall the munge package)"
  local probe="sw-probe-$$"
  if ! ip netns add "$probe" 2>/dev/null; then
    skip "cannot create a network namespace (ip netns add failed)"
  fi
  ip netns del "$probe"
}

node_names() {
  local ncpu=${SLIPWAY_CLUSTER_CPU_NODES:-3} ngpu=${SLIPWAY_CLUSTER_GPU_NODES:-2} i
  for ((i = 1; i <= ncpu + ngpu; i++)); do echo "fn$i"; done
}

cmd_down() {
  [[ -d $CL_DIR ]] || { log "nothing to stop in $CL_DIR"; return 0; }
  local id="" names=()
  [[ -r $CL_DIR/net_id ]] && id=$(<"$CL_DIR/net_id")
  [[ -r $CL_DIR/hosts ]] && mapfile -t names <"$CL_DIR/hosts"
  if [[ -n $id ]]; then
    stop_cluster_daemons "$id" "${names[@]}"
    net_remove "$id" "${names[@]}"
    rm -f "$CL_DIR/net_id"
  else
    stop_cluster_daemons none
  fi
  rm -f "$CL_ENV" "$CL_MUNGE/munge.socket"
  log "stopped the cluster in $CL_DIR (logs kept in $CL_LOG)"
}

write_env() {
  local id=$1 port=$2
  cat >"$CL_ENV" <<EOF
# Source this file to use the test cluster in $CL_DIR.
export SLURM_CONF=$CL_CONF
export SLIPWAY_CLUSTER_DIR=$CL_DIR
export SLIPWAY_CLUSTER_NET_ID=$id
export SLIPWAY_CLUSTER_CONTROLLER=$(net_prefix "$id").1:$port
export SLIPWAY_CLUSTER_CPU_HOSTS="$(grep -c . "$CL_DIR/hosts.cpu" || true)"
export SLIPWAY_CLUSTER_GPU_HOSTS="$(grep -c . "$CL_DIR/hosts.gpu" || true)"
EOF
}

cmd_up() {
  check_can_run
  if [[ -e $CL_DIR/net_id ]]; then
    log "a cluster was left in $CL_DIR: stopping it first"
    cmd_down
  fi
  mkdir -p "$CL_DIR"
  # Every start is a fresh cluster: no jobs, nodes or logs of a previous one.
  rm -rf "$CL_DIR/skipped" "$CL_ETC" "$CL_LOG" "$CL_RUN" "$CL_STATE" "$CL_SPOOL" "$CL_NODES" \
    "$CL_MUNGE" "$CL_DIR"/scratch.*
  mkdir -p "$CL_ETC" "$CL_LOG" "$CL_RUN" "$CL_STATE" "$CL_SPOOL" "$CL_NODES"
  # munged refuses a socket whose directories are not searchable by all.
  chmod 755 "$CL_DIR" "$CL_ETC"

  trap 'log "start failed: tearing down"; cmd_down' EXIT

  local ncpu=${SLIPWAY_CLUSTER_CPU_NODES:-3} ngpu=${SLIPWAY_CLUSTER_GPU_NODES:-2}
  node_names >"$CL_DIR/hosts"
  head -n "$ncpu" "$CL_DIR/hosts" >"$CL_DIR/hosts.cpu"
  tail -n "+$((ncpu + 1))" "$CL_DIR/hosts" >"$CL_DIR/hosts.gpu"

  local id port idx=0 name
  id=$(net_allocate "$CL_DIR")
  port=$((16817 + id))
  while read -r name; do
    idx=$((idx + 1))
    net_add_host "$id" "$idx" "$name"
  done <"$CL_DIR/hosts"

  local cpus=${SLIPWAY_CLUSTER_CPUS:-4}
  [[ $cpus =~ ^[0-9]+$ ]] && ((cpus >= 1 && cpus <= 4096)) ||
    die "SLIPWAY_CLUSTER_CPUS is '$cpus': give the CPUs each host declares, 1 to 4096"
  local preempt=${SLIPWAY_CLUSTER_PREEMPT:-off}
  [[ $preempt =~ ^(off|requeue|user-signal)$ ]] ||
    die "SLIPWAY_CLUSTER_PREEMPT is '$preempt': give off, requeue or user-signal"
  local max_steps=${SLIPWAY_CLUSTER_MAX_STEPS:-}
  [[ -z $max_steps || $max_steps =~ ^[1-9][0-9]{0,8}$ ]] ||
    die "SLIPWAY_CLUSTER_MAX_STEPS is '$max_steps': give the most steps a job may start (MaxStepCount), 1 or more"
  write_slurm_conf "$id" "$port" "$ncpu" "$ngpu" \
    "${SLIPWAY_SPANK_PLUGIN:-}" "${SLIPWAY_SPANK_PLUGIN_ARGS:-}" "$cpus" "$preempt" "$max_steps"
  start_munged
  start_slurmctld
  while read -r name; do start_slurmd "$id" "$name"; done <"$CL_DIR/hosts"

  local limit=${SLIPWAY_CLUSTER_TIMEOUT:-90}
  wait_until "$limit" "all hosts idle in sinfo" all_nodes_idle ||
    die "hosts not idle after ${limit}s: $(SLURM_CONF=$CL_CONF timeout 5 sinfo -N -h -o '%N=%t' | tr '\n' ' ') (logs: $CL_LOG)"

  write_env "$id" "$port"
  trap - EXIT
  log "cluster up in $CL_DIR: $(tr '\n' ' ' <"$CL_DIR/hosts")on 10.213.$id.0/24"
  echo "source $CL_ENV"
}

cmd_status() {
  [[ -r $CL_ENV ]] || die "no running cluster in $CL_DIR"
  SLURM_CONF=$CL_CONF timeout 10 sinfo
  SLURM_CONF=$CL_CONF timeout 10 squeue
}

# gc: for every slipway bridge whose recorded cluster has no live slurmctld,
# run `down` on that cluster directory (or remove its namespaces and bridge
# when the directory is gone).
cmd_gc() {
  ((EUID == 0)) || die "gc needs root (it removes network namespaces)"
  local br id alias dir
  for br in $(ip -o link show type bridge | awk -F': ' '{print $2}' | grep -E '^swbr[0-9]+$' || true); do
    id=${br#swbr}
    alias=$(ip -o link show "$br" | sed -n 's/.*alias slipway-cluster:\(.*\)$/\1/p')
    dir=${alias%% *}
    if [[ -n $dir && -r $dir/run/slurmctld.pid ]] &&
      pid_matches "$(head -n1 "$dir/run/slurmctld.pid")" "$dir/etc/slurm.conf"; then
      continue
    fi
    log "removing stale cluster $id (${dir:-unknown dir})"
    if [[ -n $dir && -d $dir ]]; then
      (cluster_paths "$dir" && cmd_down)
    fi
    local ns
    for ns in $(ip netns list | awk '{print $1}' | grep -E "^sw$id-" || true); do
      local pids
      mapfile -t pids < <(ip netns pids "$ns" 2>/dev/null)
      stop_pids 5 "${pids[@]}"
      ip netns del "$ns" 2>/dev/null || true
    done
    ip link del "$br" 2>/dev/null || true
  done
}

main() {
  local cmd=${1:-}
  [[ -n $cmd ]] || die "usage: cluster.sh up|down|status|gc [DIR]"
  local dir=${2:-${SLIPWAY_CLUSTER_DIR:-${TMPDIR:-/tmp}/slipway-cluster-$$}}
  cluster_paths "$(realpath -m "$dir")"
  case $cmd in
    up) cmd_up ;;
    down) cmd_down ;;
    status) cmd_status ;;
    gc) cmd_gc ;;
    *) die "unknown command '$cmd' (up|down|status|gc)" ;;
  esac
}

main "$@"
