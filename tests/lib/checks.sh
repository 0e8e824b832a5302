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
