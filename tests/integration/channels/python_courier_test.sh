#!/usr/bin/env bash
# Runs python_courier_test.py (the Python binding over real UCX) with a real
# rendezvous started by `slipway rendezvous` for its name-resolution part.
# Needs SLIPWAY and SLIPWAY_COURIER_LIBRARY.
set -euo pipefail
: "${SLIPWAY:?path of the slipway binary}"
: "${SLIPWAY_COURIER_LIBRARY:?path of libslipway-courier.so}"
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
work=$(mktemp -d)
rdzv_pid=
cleanup() {
  [ -n "$rdzv_pid" ] && kill "$rdzv_pid" 2>/dev/null && wait "$rdzv_pid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT

# Loopback only (see transports.hpp): the test cluster's veth pairs come and
# go while this runs.
export UCX_NET_DEVICES=lo
SLIPWAY_TOKEN=$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')
export SLIPWAY_TOKEN
"$SLIPWAY" rendezvous >"$work/rdzv.out" 2>"$work/rdzv.err" &
rdzv_pid=$!
for _ in $(seq 1 100); do
  grep -q '^SLIPWAY_RDZV=' "$work/rdzv.out" 2>/dev/null && break
  sleep 0.1
done
SLIPWAY_RDZV=$(sed -n 's/^SLIPWAY_RDZV=//p' "$work/rdzv.out")
[ -n "$SLIPWAY_RDZV" ] || { echo "slipway rendezvous did not start" >&2; cat "$work/rdzv.err" >&2; exit 1; }
export SLIPWAY_RDZV SLIPWAY_COURIER_LIBRARY
timeout 120 /usr/bin/python3 "$here/python_courier_test.py"
