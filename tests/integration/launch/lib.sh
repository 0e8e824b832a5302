# Shared helpers of the `slipway run` integration scenarios: a private run
# root, bounded waits, assertions that say what went wrong, and cleanup of
# anything a scenario started.
set -euo pipefail
: "${SLIPWAY:?SLIPWAY must point at the slipway binary}"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/slipway-it.XXXXXX")
export SLIPWAY_RUN_ROOT="$WORK/runs"
export MARKER="slipway-it-$$-$RANDOM"
BACKGROUND_PIDS=()

cleanup() {
  local pid
  for pid in "${BACKGROUND_PIDS[@]:-}"; do
    [ -n "$pid" ] && kill -9 "$pid" 2>/dev/null || true
  done
  pkill -9 -f "$MARKER" 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

# run_slipway OUTFILE ARGS...: runs slipway under a timeout; sets $status.
run_slipway() {
  local out=$1
  shift
  set +e
  timeout 120 "$SLIPWAY" "$@" >"$out" 2>&1
  status=$?
  set -e
  echo "--- slipway $* (exit $status)"
  sed 's/^/    /' "$out"
}

expect_status() {
  [ "$status" -eq "$1" ] || fail "expected exit status $1, got $status"
}

expect_line() {  # FILE REGEX
  grep -Eq -- "$2" "$1" || fail "no line matching /$2/ in $1"
}

expect_no_line() {  # FILE REGEX
  if grep -Eq -- "$2" "$1"; then fail "unexpected line matching /$2/ in $1"; fi
}

# wait_until SECONDS COMMAND...: polls every 0.1 s; fails on timeout.
wait_until() {
  local limit=$1
  shift
  local deadline=$((SECONDS + limit))
  until "$@"; do
    [ "$SECONDS" -lt "$deadline" ] || fail "timed out after ${limit}s waiting for: $*"
    sleep 0.1
  done
}

no_survivors() {
  ! pgrep -f "$MARKER" >/dev/null
}

# topology NAME: copies topologies/NAME.toml into the work dir with
# @MARKER@ and @WORK@ replaced, and prints its path.
topology() {
  sed -e "s|@MARKER@|$MARKER|g" -e "s|@WORK@|$WORK|g" -e "s|@TOPOLOGIES@|$TOPOLOGIES|g" \
    "$TOPOLOGIES/$1.toml" >"$WORK/$1.toml"
  echo "$WORK/$1.toml"
}
