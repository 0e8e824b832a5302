#!/usr/bin/env bash
# Issue 27 item 11: `cmake --install BUILD --prefix DIR` writes only under
# DIR: every file of install_manifest.txt and every file on disk, the SPANK
# plugin and its plugstack.conf.d snippet included (there the snippet names
# DIR's plugin and slipway). An install into the configured prefix (the
# system-wide one of docs/admin.md) still puts them where Slurm reads them:
# SLIPWAY_SPANK_PLUGIN_DIR and SLIPWAY_PLUGSTACK_DIR.
set -euo pipefail
source "$(dirname "$0")/../../lib/checks.sh"
: "${BUILD_DIR:?}"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/slipway-install-prefix.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
cached() { grep -E "^$1:[A-Z]+=" "$BUILD_DIR/CMakeCache.txt" | cut -d= -f2-; }
configured=$(cached CMAKE_INSTALL_PREFIX)
plugin_built=$([ -e "$BUILD_DIR/spank_plugin/slipway.so" ] && echo yes || echo no)

# install_into ROOT PREFIX: `cmake --install` with DESTDIR=ROOT, so that a file
# put outside PREFIX lands in ROOT (and fails the checks) instead of on this
# machine; leaves the manifest (its paths without ROOT) in ROOT.manifest.
install_into() {
  DESTDIR="$1" cmake --install "$BUILD_DIR" --prefix "$2" >"$1.out" 2>&1 ||
    { cat "$1.out"; fail "cmake --install --prefix $2 failed"; }
  # (ctest's RESOURCE_LOCK keeps the other install tests from rewriting it.)
  cp "$BUILD_DIR/install_manifest.txt" "$1.manifest"
  [ -s "$1.manifest" ] || fail "cmake --install --prefix $2 wrote an empty install_manifest.txt"
}

# snippet_names CONF PLUGIN BIN: the plugstack.conf.d snippet loads PLUGIN
# and hands over to BIN.
snippet_names() {
  grep -qxF "optional $2 slipway_bin=$3" "$1" ||
    fail "$1 does not name $2 and slipway_bin=$3: $(grep -v '^#' "$1")"
}

# Into a prefix other than the configured one: nothing outside it.
root="$WORK/root" prefix="$WORK/prefix"
install_into "$root" "$prefix"
outside=$(grep -v "^$prefix/" "$root.manifest" | head -n 5 || true)
[ -z "$outside" ] || fail "install_manifest.txt lists files outside the prefix $prefix: $outside"
outside=$(find "$root" -mindepth 1 \( -type f -o -type l \) ! -path "$root$prefix/*" | head -n 5)
[ -z "$outside" ] || fail "cmake --install --prefix $prefix wrote outside the prefix: $outside"
[ -x "$root$prefix/bin/slipway" ] || fail "no bin/slipway under the prefix $prefix"
if [ "$plugin_built" = yes ]; then
  plugin=$(grep -m1 '/slipway\.so$' "$root.manifest") || fail "slipway.so is not installed under $prefix"
  conf=$(grep -m1 '/plugstack\.conf\.d/slipway\.conf$' "$root.manifest") ||
    fail "the plugstack.conf.d snippet slipway.conf is not installed under $prefix"
  snippet_names "$root$conf" "$plugin" "$prefix/bin/slipway"
  expect_line "$root.out" "slipway\.conf .*is under the prefix"
fi

# Into the configured prefix: the plugin and snippet where Slurm reads them.
if [ "$plugin_built" = yes ]; then
  absolute() { case $1 in /*) echo "$1" ;; *) echo "$configured/$1" ;; esac; }
  system="$WORK/system"
  install_into "$system" "$configured"
  plugin_dir=$(absolute "$(cached SLIPWAY_SPANK_PLUGIN_DIR)")
  conf="$system$(absolute "$(cached SLIPWAY_PLUGSTACK_DIR)")/slipway.conf"
  [ -f "$system$plugin_dir/slipway.so" ] || fail "slipway.so is not installed in SLIPWAY_SPANK_PLUGIN_DIR ($plugin_dir)"
  [ -f "$conf" ] || fail "slipway.conf is not installed in SLIPWAY_PLUGSTACK_DIR ($conf)"
  snippet_names "$conf" "$plugin_dir/slipway.so" "$configured/bin/slipway"
  grep -qxF "${conf#"$system"}" "$system.manifest" || fail "install_manifest.txt does not list ${conf#"$system"}"
fi
echo PASS
