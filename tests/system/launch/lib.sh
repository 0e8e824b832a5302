# Shared helpers of the slipway-on-Slurm system tests (run through
# tests/cluster/run-system-test.sh: SLURM_CONF is set, the working directory
# is a scratch directory every host sees).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../../lib/checks.sh"
: "${SLIPWAY:?SLIPWAY must point at the slipway binary}"
: "${SLIPWAY_SOURCE_DIR:?}"
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
export SLIPWAY_RUN_ROOT=$PWD/runs
export MARKER="slipway-st-$$-$RANDOM"

# topology NAME: the test topology with @MARKER@ and @HERE@ filled in.
topology() {
  sed -e "s|@MARKER@|$MARKER|g" -e "s|@HERE@|$HERE|g" -e "s|@SOURCE@|$SLIPWAY_SOURCE_DIR|g" \
    "$HERE/topologies/$1.toml" >"$PWD/$1.toml"
  echo "$PWD/$1.toml"
}
