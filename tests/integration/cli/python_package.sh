#!/usr/bin/env bash
# Issue 15: `import slipway` works in every task slipway starts (the CLI puts
# its package on PYTHONPATH and names the courier library), from any
# directory, and after `cmake --install` through the installed package and
# the slipway.pth written for the system python3.
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

# Installed: the package under LIBDIR/slipway/python, slipway.pth naming it.
prefix="$WORK/prefix"
DESTDIR="$WORK/root" cmake --install "$BUILD_DIR" --prefix "$prefix" >"$WORK/install.out" 2>&1 ||
  { cat "$WORK/install.out"; fail "cmake --install failed"; }
installed="$WORK/root$prefix"
package=$(find "$installed" -path '*/slipway/python/slipway/replay.py' | head -n 1)
[ -n "$package" ] || fail "slipway/replay.py is not installed under $installed"
package_dir=${package%/slipway/replay.py}
site=$(grep -E '^SLIPWAY_PYTHON_SITE_DIR:PATH=' "$BUILD_DIR/CMakeCache.txt" | cut -d= -f2-)
if [ -n "$site" ]; then
  pth="$WORK/root$site/slipway.pth"
  [ -f "$pth" ] || fail "slipway.pth is not installed in $WORK/root$site"
  [ "$(cat "$pth")" = "${package_dir#"$WORK/root"}" ] || fail "slipway.pth names $(cat "$pth"), not ${package_dir#"$WORK/root"}"
fi
# What the .pth does for python3, from the DESTDIR copy.
run_logged "$WORK/installed.out" env -u PYTHONPATH -u SLIPWAY_COURIER_LIBRARY /usr/bin/python3 -c \
  "import sys; sys.path.insert(0, '$package_dir'); $check"
expect_status 0
expect_line "$WORK/installed.out" "^imported $package_dir/slipway/__init__\.py$"
echo PASS
