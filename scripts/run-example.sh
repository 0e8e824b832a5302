#!/usr/bin/env bash
# The README's main-job command: installs what is needed, builds, and runs
# a real example topology on the embedded local launcher.
# Usage: scripts/run-example.sh [TOPOLOGY]   (default examples/actor_learner.toml)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
topology=${1:-examples/actor_learner.toml}
# The default example needs only what `slipway run` starts (slipway,
# slipway-exec, slipway-replay, the courier library: cli/CMakeLists.txt's
# slipway-runtime), not the tests; another topology may need an example's
# own program, so everything is built for it.
if [ $# -eq 0 ]; then
  SLIPWAY_TARGETS=slipway-runtime scripts/setup.sh
else
  SLIPWAY_TARGETS='' scripts/setup.sh
fi
BUILD_DIR=${SLIPWAY_BUILD_DIR:-build}
"$BUILD_DIR/bin/slipway" validate "$topology"
exec "$BUILD_DIR/bin/slipway" run "$topology"
