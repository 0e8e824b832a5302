#!/usr/bin/env bash
# Runs one system test against the test cluster that the ctest fixture
# `slurm-cluster` started (tests/cluster/SlipwayCluster.cmake):
#   run-system-test.sh CLUSTER_DIR TIMEOUT COMMAND [ARGS...]
# Sources CLUSTER_DIR/env.sh (SLURM_CONF, SLIPWAY_CLUSTER_*), then runs
# COMMAND under `timeout TIMEOUT` (SIGTERM, SIGKILL 10 s later) in a fresh
# scratch directory (SLIPWAY_TEST_SCRATCH) on the shared file system, which
# every host of the cluster sees. Afterwards the cluster's plugstack.conf is
# put back as the cluster started it, and so is its slurm.conf (then
# `scontrol reconfigure`) when the test changed it (cluster_setting in
# tests/system/resume/lib.sh).
#
# Exit status: COMMAND's; 77 (ctest SKIP_RETURN_CODE) when the fixture
# skipped the cluster (not root, no network namespaces), said loudly;
# 1 when no cluster is up although none was skipped.
set -euo pipefail

dir=$1 limit=$2; shift 2

if [[ -r $dir/skipped ]]; then
  printf '\n*** SKIPPED: no Slurm test cluster: %s ***\n\n' "$(<"$dir/skipped")" >&2
  exit 77
fi
if [[ ! -r $dir/env.sh ]]; then
  echo "run-system-test: no test cluster is up in $dir (the fixture test system:cluster:up failed or did not run; run 'ctest -R system:' to start it)" >&2
  exit 1
fi
source "$dir/env.sh"

scratch=$(mktemp -d "$dir/scratch.XXXXXX")
chmod 755 "$scratch"
export SLIPWAY_TEST_SCRATCH=$scratch
cd "$scratch"

set +e
timeout --kill-after=10 "$limit" "$@"
rc=$?
set -e
if ((rc == 124 || rc == 137)); then
  echo "run-system-test: '$*' did not finish within ${limit}s" >&2
  # Leave nothing queued or running behind a timed-out test.
  timeout 10 scancel --user=root >/dev/null 2>&1 || true
fi
# A test may change the plugin stack (tests/system/launchers/lib.sh
# plugin_only_on): the next test gets the cluster's own back, even when
# this one was killed.
plugstack=$dir/etc/plugstack.conf
if [[ -r $plugstack.cluster ]] && ! cmp -s "$plugstack.cluster" "$plugstack"; then
  cp "$plugstack.cluster" "$plugstack"
fi
conf=$dir/etc/slurm.conf
if [[ -r $conf.cluster ]] && ! cmp -s "$conf.cluster" "$conf"; then
  cp "$conf.cluster" "$conf"
  timeout 30 scontrol reconfigure || echo "run-system-test: scontrol reconfigure failed after putting $conf back" >&2
fi
((rc == 0)) && rm -rf "$scratch"
exit "$rc"
