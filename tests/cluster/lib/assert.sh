# shellcheck shell=bash
# Assertions for the bash system tests (source it; each failure prints what
# was expected and what came, then exits 1).

source "$(dirname "${BASH_SOURCE[0]}")/../../lib/checks.sh"  # fail, expect_line, wait_until

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
