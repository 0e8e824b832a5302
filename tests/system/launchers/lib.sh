# shellcheck shell=bash
# Shared helpers of the slipway-on-Slurm system tests (run through
# tests/cluster/run-system-test.sh: SLURM_CONF is set, the working directory
# is a scratch directory every host sees).
set -euo pipefail
# shellcheck source=tests/lib/checks.sh
source "$(dirname "${BASH_SOURCE[0]}")/../../lib/checks.sh"
: "${SLIPWAY:?SLIPWAY must point at the slipway binary}"
: "${SLIPWAY_SOURCE_DIR:?}"
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
HARNESS=$SLIPWAY_SOURCE_DIR/tests/cluster
export SLIPWAY_RUN_ROOT=$PWD/runs
export MARKER="slipway-st-$$-$RANDOM"

# topology NAME: the test topology with @MARKER@, @HERE@, @SOURCE@ and
# @SCRATCH@ (this test's scratch directory, seen by every host) filled in.
topology() {
  sed -e "s|@MARKER@|$MARKER|g" -e "s|@HERE@|$HERE|g" -e "s|@SOURCE@|$SLIPWAY_SOURCE_DIR|g" \
    -e "s|@SCRATCH@|$PWD|g" "$HERE/topologies/$1.toml" >"$PWD/$1.toml"
  echo "$PWD/$1.toml"
}

# wait_for_launcher PID OUT: waits (90 s at most) for the launcher this
# test started in the background, shows its output OUT and sets $status to
# its exit status.
wait_for_launcher() {
  wait_for_child 90 "$1"
  sed 's/^/    /' "$2"
}

# kill_host NAME: the host dies: every process in its network namespace
# (slurmd, slurmstepd, agents, commands) of this cluster only.
# kill_agent TASK: SIGKILL of the slipway-exec running TASK (NODE.REPLICA,
# dots escaped for pgrep) for this test's program (its command holds
# $MARKER) and of that command, as a crashed node daemon would leave them.
kill_agent() {
  local agent command
  agent=$(pgrep -f -- "--task $1( |$)" | while read -r p; do
    if [ "$(ps -o comm= -p "$p")" = slipway-exec ] && pgrep -P "$p" -f "$MARKER" >/dev/null; then echo "$p"; fi; done)
  [ "$(echo "$agent" | wc -w)" -eq 1 ] || fail "expected one slipway-exec of $1: $agent"
  command=$(pgrep -P "$agent" || true)
  # shellcheck disable=SC2086
  kill -9 "$agent" $command
}

# kill_host HOST: SIGKILL of every process in HOST's namespace (one that
# ends meanwhile is no error).
kill_host() {
  ip netns pids "sw$SLIPWAY_CLUSTER_NET_ID-$1" | xargs -r kill -9 2>/dev/null || true
}

# kill_launcher PID: SIGKILL of a test's `srun --program` (PID) and of the
# salloc it runs (and waits for), on a test's way out.
kill_launcher() {
  pkill -9 -P "$1" 2>/dev/null || true
  kill -9 "$1" 2>/dev/null || true
}

# restart_host NAME: starts the slurmd of a host killed by kill_host again
# and waits until Slurm has it idle.
restart_host() {
  local host=$1
  (
    source "$HARNESS/lib/common.sh"
    source "$HARNESS/lib/network.sh"
    source "$HARNESS/lib/daemons.sh"
    cluster_paths "$SLIPWAY_CLUSTER_DIR"
    # Our host only: other clusters on this machine have one of that name too.
    # No slurmd there: what is left of the host (processes killed a moment
    # ago, not yet gone) goes first, then a slurmd starts.
    local ns="sw$SLIPWAY_CLUSTER_NET_ID-$host" p has_slurmd=
    for p in $(ip netns pids "$ns"); do
      if [ "$(cat "/proc/$p/comm" 2>/dev/null)" = slurmd ]; then has_slurmd=1; fi
    done
    if [ -z "$has_slurmd" ]; then
      local gone_by=$((SECONDS + 15))
      while [ -n "$(ip netns pids "$ns")" ] && [ "$SECONDS" -lt "$gone_by" ]; do
        ip netns pids "$ns" | xargs -r kill -9 2>/dev/null || true
        sleep 0.2
      done
      start_slurmd "$SLIPWAY_CLUSTER_NET_ID" "$host"
    fi
    # slurmctld may hold the host (down, or completing the killed step) for
    # a while: once the job is gone, force a down/resume cycle until idle.
    local deadline=$((SECONDS + 150)) state
    while state=$(sinfo -h -n "$host" -o %T) && [ "$state" != idle ]; do
      [ "$SECONDS" -lt "$deadline" ] || { echo "$host stayed '$state'" >&2; exit 1; }
      if [ -z "$(squeue -h -w "$host" -t R,CG -o %i)" ] || [ "$SECONDS" -gt $((deadline - 120)) ]; then
        case $state in
          idle) ;;
          down*|drain*|fail*) scontrol update nodename="$host" state=resume >/dev/null 2>&1 || true ;;
          *) scontrol update nodename="$host" state=down reason=slipway-host-lost-test >/dev/null 2>&1 || true
             scontrol update nodename="$host" state=resume >/dev/null 2>&1 || true ;;
        esac
      fi
      sleep 1
    done
  )
}

# plugin_only_on HOST...: plugstack.conf names slipway.so at a path under
# /var/tmp, which resolves on this machine (where srun, sbatch and salloc
# run) and on the named cluster hosts only: every host has its own /var/tmp
# (tests/cluster/lib/daemons.sh), so on the others the required plugin is
# missing, as where an admin installed slipway on some hosts only and
# Slurm fails those hosts' steps ("Plugin initialization failed").
# run-system-test.sh puts the cluster's own plugstack.conf back after the
# test; plugin_restore does it earlier.
PLUGIN_DIR_NAME=slipway-st-plugin-$$
plugin_only_on() {
  local conf=$SLIPWAY_CLUSTER_DIR/etc/plugstack.conf required plugin args host dir
  read -r required plugin args <"$conf"
  [ "$required" = required ] && [ -e "$plugin" ] || fail "unexpected plugstack.conf: $(cat "$conf")"
  mkdir -p "/var/tmp/$PLUGIN_DIR_NAME"
  ln -sf "$plugin" "/var/tmp/$PLUGIN_DIR_NAME/slipway.so"
  for host; do  # that host's /var/tmp
    dir=$SLIPWAY_CLUSTER_DIR/nodes/$host/var-tmp/$PLUGIN_DIR_NAME
    mkdir -p "$dir"
    ln -sf "$plugin" "$dir/slipway.so"
  done
  echo "required /var/tmp/$PLUGIN_DIR_NAME/slipway.so $args" >"$conf"
}
plugin_restore() {
  cp "$SLIPWAY_CLUSTER_DIR/etc/plugstack.conf.cluster" "$SLIPWAY_CLUSTER_DIR/etc/plugstack.conf"
  rm -rf "/var/tmp/$PLUGIN_DIR_NAME" "$SLIPWAY_CLUSTER_DIR"/nodes/*/var-tmp/"$PLUGIN_DIR_NAME"
}
