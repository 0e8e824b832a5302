#!/usr/bin/env bash
# The README's main-job command: installs what is needed, builds, and runs
# a real example topology on the embedded local launcher.
# Usage: scripts/run-example.sh [TOPOLOGY]   (default examples/actor_learner.toml)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
scripts/setup.sh
BUILD_DIR=${SLIPWAY_BUILD_DIR:-build}
topology=${1:-examples/actor_learner.toml}
"$BUILD_DIR/bin/slipway" validate "$topology"
exec "$BUILD_DIR/bin/slipway" run "$topology"
