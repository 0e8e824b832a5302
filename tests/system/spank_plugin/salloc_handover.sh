#!/usr/bin/env bash
# `salloc [opts] --program=FILE` is `salloc [opts] slipway launch FILE`: the
# allocation is made, and slipway runs inside it.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/../../lib/checks.sh"
export SLIPWAY_BIN=$here/record-argv.sh

out=$(salloc -N2 --quiet --program=topo.toml)
echo "$out"
assert_eq $'arg=[launch]\narg=[topo.toml]' "$(grep '^arg=' <<<"$out")" "argv in the allocation"
job=$(sed -n 's/^job=//p' <<<"$out")
[[ $job =~ ^[0-9]+$ ]] || fail "slipway did not run inside an allocation (job='$job')"
assert_contains "$out" "guard=1" "re-exec guard"
