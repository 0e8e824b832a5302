#!/usr/bin/env bash
# Issue 11 item 5: after `cmake --install`, the installed slipway-bench finds
# every peer it runs (in the installation, never in the build or source
# tree), or names the missing one and how to install it.
set -euo pipefail
source "$(dirname "$0")/../../lib/checks.sh"
: "${BUILD_DIR:?}" "${SOURCE_DIR:?}"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/slipway-install.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

# DESTDIR as well as --prefix: should a file go outside the prefix
# (integration:cli:install_prefix fails then), it lands under DESTDIR, so
# nothing of this machine's is touched.
prefix="$WORK/prefix"
DESTDIR="$WORK/root" cmake --install "$BUILD_DIR" --prefix "$prefix" >"$WORK/install.out" 2>&1 ||
  { cat "$WORK/install.out"; fail "cmake --install failed"; }
installed="$WORK/root$prefix"
bench="$installed/bin/slipway-bench"
[ -x "$bench" ] || fail "no slipway-bench in $installed/bin"

# A peer of ours that the build made is installed where slipway-bench looks.
built_peer() {  # NAME INSTALLED_PATH: fails when built but not installed
  [ -e "$BUILD_DIR/bin/$1" ] || return 0
  [ -e "$installed/$2" ] || fail "$1 is built ($BUILD_DIR/bin/$1) but not installed at $2"
}
built_peer slipway-grpc-echo libexec/slipway/slipway-grpc-echo
built_peer slipway-mpi-allreduce libexec/slipway/slipway-mpi-allreduce
built_peer slipway-replay bin/slipway-replay
[ -e "$installed/share/slipway/bench/rendezvous_tcpstore.py" ] || fail "rendezvous_tcpstore.py not installed"
[ -e "$installed/share/slipway/bench/json_replay.py" ] || fail "json_replay.py not installed"
[ -x "$installed/share/slipway/bench/cluster/cluster.sh" ] || fail "the cluster harness is not installed"

"$bench" --peers >"$WORK/peers.out" 2>&1 || true  # 1 when a Debian peer is missing
cat "$WORK/peers.out"
expect_line "$WORK/peers.out" '^PEER +BENCHMARKS +STATUS'
for peer in slipway slipway-exec slipway-grpc-echo ucx_perftest rendezvous_tcpstore.py python3 \
            slipway-mpi-allreduce salloc slipway.so cluster/cluster.sh slipway-replay redis-server json_replay.py; do
  line=$(grep -E "^${peer//./\\.} " "$WORK/peers.out") || fail "--peers does not list $peer"
  case $(awk '{print $3}' <<<"$line") in
    found)
      path=${line##* }
      case $peer in
        # Debian's, from PATH. (The SPANK plugin is installed under the
        # prefix given: spank_plugin/install_plugin.cmake.)
        ucx_perftest | python3 | salloc | redis-server) ;;
        *) [[ $path == "$installed"/* ]] || fail "$peer found outside the installation: $path" ;;
      esac
      [ -e "$path" ] || fail "$peer found at $path, which does not exist"
      ;;
    MISSING)
      # Missing: named with where it was looked for and how to get it.
      [[ $line == *"peer $peer of slipway-bench"*"is missing (looked in"*"): "* ]] ||
        fail "the missing $peer is not explained: $line"
      case $peer in
        slipway | slipway-exec | rendezvous_tcpstore.py | json_replay.py | cluster/cluster.sh)
          fail "$peer is always installed, yet missing" ;;
        slipway-grpc-echo | slipway-mpi-allreduce | slipway-replay)
          [ ! -e "$BUILD_DIR/bin/$peer" ] || fail "$peer was built, yet the installed bench misses it" ;;
      esac
      ;;
    *) fail "no status for $peer: $line" ;;
  esac
done

# With a peer taken away, the bench that needs it says loudly which and how.
rm -f "$installed/share/slipway/bench/rendezvous_tcpstore.py"
set +e
"$bench" --peers >"$WORK/peers.out" 2>&1
status=$?
set -e
[ "$status" -eq 1 ] || fail "--peers exit $status with a peer missing, expected 1"
expect_line "$WORK/peers.out" "^rendezvous_tcpstore\.py +rendezvous +MISSING +peer rendezvous_tcpstore\.py of slipway-bench rendezvous is missing \(looked in $installed/share/slipway/bench/rendezvous_tcpstore\.py\): cmake --install"

# A benchmark whose peer is missing still ends with its line, that peer's
# figures n/a, and says why on stderr.
rm -f "$installed/share/slipway/bench/json_replay.py"
"$bench" replay --services json --rounds 1 >"$WORK/replay.out" 2>&1 || fail "slipway-bench replay failed without its JSON peer"
cat "$WORK/replay.out"
expect_line "$WORK/replay.out" "^\*\*\* replay: json: peer json_replay\.py of slipway-bench replay is missing"
expect_line "$WORK/replay.out" "^replay: insert_per_s=n/a .* json_insert_per_s=n/a json_sample_per_s=n/a"
echo PASS
