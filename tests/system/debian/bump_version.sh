#!/usr/bin/env bash
# Repacks a built .deb under a higher version, for the upgrade in
# installed.sh: the same files, Version OLD... becomes NEW..., and the
# dependencies on (= OLD) become (= NEW).
#   bump_version.sh DEB OLD NEW OUT_DIR
set -euo pipefail
deb=$1 old=$2 new=$3 out=$4
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
dpkg-deb -R "$deb" "$work/root"
quoted=$(sed 's/[.+]/\\&/g' <<<"$old")
sed -i -e "s/^Version: $quoted/Version: $new/" -e "s/(= $quoted)/(= $new)/g" "$work/root/DEBIAN/control"
dpkg-deb --root-owner-group -b "$work/root" "$out/" >/dev/null
