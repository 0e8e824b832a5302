# Shared helpers of the slipway-on-Slurm system tests (run through
# tests/cluster/run-system-test.sh: SLURM_CONF is set, the working directory
# is a scratch directory every host sees).
set -euo pipefail
: "${SLIPWAY:?SLIPWAY must point at the slipway binary}"
: "${SLIPWAY_SOURCE_DIR:?}"
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
export SLIPWAY_RUN_ROOT=$PWD/runs
export MARKER="slipway-st-$$-$RANDOM"

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

expect_line() {  # FILE REGEX
  grep -Eq -- "$2" "$1" || fail "no line matching /$2/ in $1"
}

# topology NAME: the test topology with @MARKER@ and @HERE@ filled in.
topology() {
  sed -e "s|@MARKER@|$MARKER|g" -e "s|@HERE@|$HERE|g" -e "s|@SOURCE@|$SLIPWAY_SOURCE_DIR|g" \
    "$HERE/topologies/$1.toml" >"$PWD/$1.toml"
  echo "$PWD/$1.toml"
}

# run_logged OUTFILE COMMAND...: runs it, shows its output, sets $status.
run_logged() {
  local out=$1
  shift
  set +e
  "$@" >"$out" 2>&1
  status=$?
  set -e
  echo "--- $* (exit $status)"
  sed 's/^/    /' "$out"
}

wait_until() {  # SECONDS COMMAND...
  local limit=$1
  shift
  local deadline=$((SECONDS + limit))
  until "$@"; do
    [ "$SECONDS" -lt "$deadline" ] || fail "timed out after ${limit}s waiting for: $*"
    sleep 0.2
  done
}
