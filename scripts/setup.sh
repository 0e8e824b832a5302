#!/usr/bin/env bash
# Installs slipway's build and test dependencies from Debian's packages and
# builds it into ./build. Run as root on Debian bookworm. Sourced or run by
# scripts/run-example.sh and scripts/test.sh; safe to run again.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

PACKAGES=(
  build-essential cmake ninja-build pkg-config ccache git
  libtomlplusplus-dev libasio-dev libcli11-dev libspdlog-dev nlohmann-json3-dev catch2
  slurm-wlm slurm-client libslurm-dev munge libmunge-dev
  libpmix-dev libpmix-bin libucx-dev ucx-utils
  libgrpc++-dev protobuf-compiler-grpc libprotobuf-dev protobuf-compiler
  openmpi-bin libopenmpi-dev python3-mpi4py python3-torch python3-cloudpickle mypy
  bats iproute2 util-linux procps psmisc shellcheck
  libncurses-dev
  redis-server libjemalloc-dev
  libmicrohttpd-dev prometheus
  chromium chromium-driver python3-selenium graphviz
  clang libclang-rt-14-dev
  debhelper lintian
)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "setup: missing packages (${missing[*]}); run as root to install them" >&2
    exit 1
  fi
  echo "setup: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q
  apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

# ccache keys on paths relative to the checkout and not on the build
# folder (hash_dir off: debug info may name the folder of the build that
# filled the cache), so a fresh clone, and the package build of
# system:debian:build, reuse what an earlier build compiled. ccache also
# keys on the locale, which debhelper sets to LC_ALL=C.UTF-8: so does this
# build.
export CCACHE_BASEDIR=$PWD CCACHE_NOHASHDIR=true LC_ALL=C.UTF-8
BUILD_DIR=${SLIPWAY_BUILD_DIR:-build}
CMAKE_ARGS=(-G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo)
if [ "${CI:-}" = "true" ]; then
  CMAKE_ARGS+=(-DSLIPWAY_WERROR=ON)
fi
if command -v clang++ >/dev/null && [ -e /usr/lib/llvm-14/lib/clang/14.0.6/lib/linux/libclang_rt.fuzzer-x86_64.a ]; then
  CMAKE_ARGS+=(-DSLIPWAY_FUZZ=ON)
fi
cmake -S . -B "$BUILD_DIR" "${CMAKE_ARGS[@]}"
# SLIPWAY_TARGETS="T1 T2": build only those targets (scripts/run-example.sh);
# unset or empty: every target (scripts/test.sh).
build=(cmake --build "$BUILD_DIR" -j "${SLIPWAY_JOBS:-$(nproc)}")
if [ -n "${SLIPWAY_TARGETS:-}" ]; then
  read -r -a targets <<<"$SLIPWAY_TARGETS"
  build+=(--target "${targets[@]}")
fi
"${build[@]}"
