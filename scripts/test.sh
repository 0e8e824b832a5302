#!/usr/bin/env bash
# The README's test command: installs what is needed, builds, and runs the
# whole test suite (unit, integration, system) with ctest. Exits non-zero on
# any failure. Extra arguments go to ctest (e.g. -L unit).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
scripts/setup.sh
BUILD_DIR=${SLIPWAY_BUILD_DIR:-build}
cd "$BUILD_DIR"
ctest --output-on-failure --timeout 600 -j "${SLIPWAY_TEST_JOBS:-2}" "$@"
