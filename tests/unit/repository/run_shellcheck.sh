#!/usr/bin/env bash
# Runs shellcheck (warnings and errors) over every shell script the repository
# tracks: *.sh, and scripts/ and .ci/ files whose first line runs a shell.
# Settings: the repository's .shellcheckrc (sourced helpers are followed).
set -euo pipefail
cd "$1"
mapfile -t scripts < <(
  {
    git ls-files '*.sh'
    git ls-files scripts .ci | while read -r f; do
      head -n1 "$f" | grep -qE '^#!.*(ba)?sh' && echo "$f"
    done
  } | sort -u)
[ "${#scripts[@]}" -gt 0 ] || { echo "no shell scripts found under $1" >&2; exit 1; }
shellcheck --severity=warning "${scripts[@]}"
echo "shellcheck: ${#scripts[@]} scripts clean"
