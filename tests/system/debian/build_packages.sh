#!/usr/bin/env bash
# Builds slipway's Debian packages from this source tree as an admin would
# (dpkg-buildpackage -b on a copy of the tree), then holds them to lintian:
# no error and no warning, each override explained in debian/. The packages
# land in OUT for system:debian:installed.
#   build_packages.sh SOURCE_DIR OUT on|off CFLAGS CXXFLAGS
# The compiler flags are the suite's own build's (CMAKE_C/CXX_FLAGS, and
# on: warnings are errors, DEB_BUILD_OPTIONS=werror) instead of
# dpkg-buildflags' hardening set, so that ccache serves every object the
# suite compiled and the build costs the links only; the linker flags stay
# Debian's (relro, bindnow). An admin's dpkg-buildpackage uses
# dpkg-buildflags' (docs/admin.md).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/../../lib/checks.sh"
src=$1 out=$2 werror=$3 cflags=$4 cxxflags=$5

for tool in dpkg-buildpackage dh lintian; do
  command -v "$tool" >/dev/null || fail "$tool not found: install dpkg-dev, debhelper and lintian (scripts/setup.sh does)"
done

rm -rf "$out"
mkdir -p "$out/src"
# The tree as git sees it (tracked files, and new ones not ignored), never a
# build folder.
if git -C "$src" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  (cd "$src" && git ls-files -z --cached --others --exclude-standard |
    tar --null --ignore-failed-read -T - -cf -) | tar -xf - -C "$out/src"
else
  fail "$src is not a git checkout: build the packages by hand (docs/admin.md)"
fi

# debhelper gives the build a HOME of its own: name the cache ccache uses
# here, or the build would start from an empty one.
if command -v ccache >/dev/null; then
  CCACHE_DIR=$(ccache -k cache_dir)
  export CCACHE_DIR
fi
options="nocheck parallel=$(nproc)"
[[ $werror == on ]] && options+=" werror"
log=$out/build.log
echo "dpkg-buildpackage -b -uc -us (DEB_BUILD_OPTIONS='$options') in $out/src; log: $log"
start=$SECONDS
if ! (cd "$out/src" && CCACHE_BASEDIR="$out/src" CCACHE_NOHASHDIR=true DEB_BUILD_OPTIONS="$options" \
      DEB_CFLAGS_SET="$cflags" DEB_CXXFLAGS_SET="$cxxflags" DEB_CPPFLAGS_SET="" \
      dpkg-buildpackage -b -uc -us) >"$log" 2>&1; then
  tail -n 60 "$log"
  fail "dpkg-buildpackage failed (whole log: $log)"
fi
echo "built in $((SECONDS - start)) s"
ls -l "$out"/*.deb

for package in slipway slipway-spank libslipway-dev slipway-bench; do
  compgen -G "$out/${package}_*.deb" >/dev/null || fail "no ${package} package was built"
done

changes=$(compgen -G "$out/slipway_*.changes" | head -n1)
[[ -n $changes ]] || fail "dpkg-buildpackage wrote no .changes file"
# lintian refuses nothing as root but says so on stderr; tags go to stdout.
set +e
tags=$(lintian --fail-on error,warning --no-tag-display-limit "$changes" 2>"$out/lintian.err")
rc=$?
set -e
echo "lintian: ${tags:-no tags}"
((rc == 0)) || fail "lintian found errors or warnings in the packages: $tags $(cat "$out/lintian.err")"
