#!/usr/bin/env bash
# Issue 15: `import slipway` works in every task slipway starts (the CLI puts
# its package on PYTHONPATH and names the courier library), from any
# directory, and after `cmake --install` through the installed package and
# the slipway.pth written for the system python3 (only when installing into
# the configured prefix: `--prefix DIR` writes nothing outside DIR).
source "$(dirname "$0")/lib.sh"
: "${BUILD_DIR:?}"

check='import slipway.courier, slipway.replay; slipway.courier.load_library(); print("imported", slipway.__file__)'
cat >"$WORK/py.toml" <<TOML
[program]
name = "pyimport"

[node.a]
command = ["/usr/bin/python3", "-c", '$check', "$MARKER"]
replicas = 2
TOML
cd "$WORK"  # not the source tree: nothing found by accident
run_logged "$WORK/out" env -u PYTHONPATH -u SLIPWAY_COURIER_LIBRARY timeout 60 "$SLIPWAY" run "$WORK/py.toml"
expect_status 0
expect_line "$WORK/out" "^a\.0: imported .*/slipway/__init__\.py$"
expect_line "$WORK/out" "^a\.1: imported .*/slipway/__init__\.py$"

# Installed into another prefix: the package under LIBDIR/slipway/python,
# and nothing outside the prefix (no slipway.pth in python3's own site
# directory, which lies outside it; issue 27).
prefix="$WORK/prefix"
DESTDIR="$WORK/root" cmake --install "$BUILD_DIR" --prefix "$prefix" >"$WORK/install.out" 2>&1 ||
  { cat "$WORK/install.out"; fail "cmake --install failed"; }
installed="$WORK/root$prefix"
package=$(find "$installed" -path '*/slipway/python/slipway/replay.py' | head -n 1)
[ -n "$package" ] || fail "slipway/replay.py is not installed under $installed"
package_dir=${package%/slipway/replay.py}
# (integration:cli:install_prefix checks every other file.)
cached() { grep -E "^$1:PATH=" "$BUILD_DIR/CMakeCache.txt" | cut -d= -f2-; }
pth=$(find "$WORK/root" -name slipway.pth | head -n 1)
[ -z "$pth" ] || fail "cmake --install --prefix $prefix wrote $pth, outside the prefix"
# Into the configured prefix (where python3's site directory was chosen for):
# slipway.pth there, naming the installed package.
site=$(cached SLIPWAY_PYTHON_SITE_DIR)
configured=$(cached CMAKE_INSTALL_PREFIX)
if [ -n "$site" ]; then
  DESTDIR="$WORK/system" cmake --install "$BUILD_DIR" --prefix "$configured" >"$WORK/install-system.out" 2>&1 ||
    { cat "$WORK/install-system.out"; fail "cmake --install --prefix $configured failed"; }
  pth="$WORK/system$site/slipway.pth"
  [ -f "$pth" ] || fail "slipway.pth is not installed in $WORK/system$site"
  system_package=$(find "$WORK/system$configured" -path '*/slipway/python/slipway/replay.py' | head -n 1)
  system_package=${system_package%/slipway/replay.py}
  [ "$(cat "$pth")" = "${system_package#"$WORK/system"}" ] ||
    fail "slipway.pth names $(cat "$pth"), not ${system_package#"$WORK/system"}"
fi
# What the .pth does for python3, from the DESTDIR copy.
run_logged "$WORK/installed.out" env -u PYTHONPATH -u SLIPWAY_COURIER_LIBRARY /usr/bin/python3 -c \
  "import sys; sys.path.insert(0, '$package_dir'); $check"
expect_status 0
expect_line "$WORK/installed.out" "^imported $package_dir/slipway/__init__\.py$"
echo PASS
