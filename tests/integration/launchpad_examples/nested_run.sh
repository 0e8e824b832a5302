#!/usr/bin/env bash
# Issue 27 item 6: `slipway run` of a program from inside one of its own
# tasks is refused (exit 2, a message saying why and naming --nested),
# unless --nested asks for it; a program's own tasks cannot start it again
# by accident. The node below runs its own topology once more; the copy it
# starts sees NESTED_COPY and only says so.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/example_lib.sh"

topology=$runs/nested.toml
cat >"$topology" <<TOML
[program]
name = "nested"

[node.outer]
command = ["bash", "-c", 'if [ -n "\${NESTED_COPY:-}" ]; then echo copy ran; exit 0; fi; NESTED_COPY=1 "\$0" run "\$1" --run-root "\$2" \${NESTED_FLAG:-}; echo "nested status \$?"', "$SLIPWAY", "$topology", "$runs/inner"]
TOML

run_nested() {   # [--nested]
  status=0
  output=$(NESTED_FLAG=${1:-} timeout 120 "$SLIPWAY" run "$topology" --run-root "$runs/outer" 2>&1) || status=$?
  printf '%s\n' "$output"
  [ "$status" -eq 0 ] || fail "the outer program exited with status $status"
}

run_nested
expect "^outer\.0: slipway run: refused: this is a task \(outer\) of program 'nested'.*pass --nested$" \
  "the nested run was not refused with its reason"
expect '^outer\.0: nested status 2$' "the refused nested run did not exit 2"
if grep -q 'copy ran' <<<"$output"; then fail "the refused nested run ran the program"; fi
[ ! -e "$runs/inner" ] || [ -z "$(ls -A "$runs/inner")" ] || fail "the refused nested run made a run directory"

run_nested --nested
expect '^outer\.0: outer\.0: copy ran$' "with --nested, the nested copy did not run"
expect '^outer\.0: nested status 0$' "with --nested, the nested run did not exit 0"
"$SLIPWAY" run --help | grep -q -- '--nested' || fail "slipway run --help does not document --nested"
echo "$script: ok"
