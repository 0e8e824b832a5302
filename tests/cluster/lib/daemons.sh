# shellcheck shell=bash
# Daemons of the test cluster (sourced by cluster.sh): a private munged, the
# slurmctld on the bridge address, and one slurmd per host inside that host's
# network namespace, its own UTS namespace (hostname fnK) and its own mount
# namespace with a private /var/tmp and the cluster's /etc/hosts. Every start is bounded in time; every
# stop is idempotent and checks that a pid is still ours before killing it.

# start_munged: munged as user munge with socket, pid, log and seed in
# CL_MUNGE (so nothing collides with a system munged). Uses the Debian key.
start_munged() {
  install -d -o munge -g munge -m 0755 "$CL_MUNGE"
  timeout 20 runuser -u munge -- munged \
    --socket="$CL_MUNGE/munge.socket" \
    --pid-file="$CL_MUNGE/munged.pid" \
    --log-file="$CL_MUNGE/munged.log" \
    --seed-file="$CL_MUNGE/munged.seed" </dev/null ||
    die "munged did not start (see $CL_MUNGE/munged.log)"
  wait_until 10 "munged socket" test -S "$CL_MUNGE/munge.socket" || return 1
  timeout 10 munge -n -S "$CL_MUNGE/munge.socket" |
    timeout 10 unmunge -S "$CL_MUNGE/munge.socket" >/dev/null ||
    die "munge round trip failed (see $CL_MUNGE/munged.log)"
}

start_slurmctld() {
  SLURM_CONF=$CL_CONF timeout 20 slurmctld -f "$CL_CONF" -i \
    </dev/null >>"$CL_LOG/slurmctld.out" 2>&1 ||
    die "slurmctld did not start (see $CL_LOG/slurmctld.log)"
  wait_until 30 "slurmctld to answer" env SLURM_CONF="$CL_CONF" timeout 5 scontrol ping ||
    die "slurmctld does not answer (see $CL_LOG/slurmctld.log)"
}

# start_slurmd ID NAME: slurmd for host NAME in namespace sw<ID>-<NAME>.
start_slurmd() {
  local id=$1 name=$2 ns node_dir
  ns=$(netns_name "$id" "$name")
  node_dir=$CL_NODES/$name
  mkdir -p "$node_dir/var-tmp" "$CL_SPOOL/$name"
  chmod 1777 "$node_dir/var-tmp"
  # nsenter (not `ip netns exec`, which remounts /sys and hides the cgroup
  # tree) into the host's net namespace, then private mount + UTS namespaces.
  SLURM_CONF=$CL_CONF timeout 20 nsenter --net="/run/netns/$ns" -- \
    unshare --mount --uts --propagation private -- \
    /bin/sh -c 'hostname "$1" && mount --bind "$2" /var/tmp && mount --bind "$4" /etc/hosts &&
      exec slurmd -N "$1" -f "$3"' \
    slurmd-launch "$name" "$node_dir/var-tmp" "$CL_CONF" "$CL_ETC/hosts" \
    </dev/null >>"$CL_LOG/slurmd-$name.out" 2>&1 ||
    die "slurmd on $name did not start (see $CL_LOG/slurmd-$name.log)"
}

# all_nodes_idle: every host of this cluster is idle in sinfo.
all_nodes_idle() {
  local states
  states=$(SLURM_CONF=$CL_CONF timeout 5 sinfo -h -N -o '%N %t' | sort -u) || return 1
  [[ -n $states ]] || return 1
  ! grep -qv ' idle$' <<<"$states"
}

# stop_cluster_daemons ID NAME...: every process in the hosts' namespaces
# (slurmd, slurmstepd, tasks) at once, then slurmctld, then munged.
stop_cluster_daemons() {
  local id=$1; shift
  local name pid pids=()
  for name in "$@"; do
    pid=$(head -n1 "$CL_RUN/slurmd-$name.pid" 2>/dev/null || true)
    pid_matches "$pid" "$CL_CONF" && pids+=("$pid")
    mapfile -t -O "${#pids[@]}" pids < <(net_host_pids "$id" "$name")
  done
  stop_pids 10 "${pids[@]}"
  for name in "$@"; do rm -f "$CL_RUN/slurmd-$name.pid"; done
  stop_pidfile "$CL_RUN/slurmctld.pid" "$CL_CONF"
  stop_pidfile "$CL_MUNGE/munged.pid" "$CL_MUNGE/munge.socket"
}
