# shellcheck shell=bash
# The one helper library of the bash tests (integration and system):
# failing with a message, expected lines in a file, assertions on values,
# bounded waits, logged runs. Source it; each failure prints what was
# expected and what came, then exits 1.

fail() { printf 'FAIL: %s\n' "$*" >&2; exit 1; }

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

# wait_for_child SECONDS PID: waits that long at most for a process this
# shell started in the background; sets $status to its exit status.
wait_for_child() {
  set +e
  timeout "$1" tail --pid="$2" -f /dev/null
  wait "$2"
  status=$?
  set -e
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

# assert_eq EXPECTED ACTUAL WHAT
assert_eq() {
  [[ $1 == "$2" ]] && return 0
  printf 'FAIL: %s\n--- expected ---\n%s\n--- got ---\n%s\n' "$3" "$1" "$2" >&2
  exit 1
}

# assert_contains HAYSTACK NEEDLE WHAT
assert_contains() {
  [[ $1 == *"$2"* ]] && return 0
  printf 'FAIL: %s: %q not found in\n%s\n' "$3" "$2" "$1" >&2
  exit 1
}

# assert_not_contains HAYSTACK NEEDLE WHAT
assert_not_contains() {
  [[ $1 != *"$2"* ]] && return 0
  printf 'FAIL: %s: %q unexpectedly found in\n%s\n' "$3" "$2" "$1" >&2
  exit 1
}
