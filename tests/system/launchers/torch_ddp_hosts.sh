#!/usr/bin/env bash
# torch DDP (gloo, env://) across 3 hosts, inside an salloc allocation.
source "$(dirname "$0")/lib.sh"
run_logged out salloc -N3 -n3 -p cpu "$SLIPWAY" launch "$(topology ddp_hosts)"
[ "$status" -eq 0 ] || fail "salloc slipway launch exited $status"
hosts=$(sed -n 's/^trainer\.[0-9]: rank [0-9]\/3 on \(fn[0-9]\): allreduce ok, gradients agree$/\1/p' out | sort -u | wc -l)
[ "$hosts" -eq 3 ] || fail "expected 3 ranks on 3 distinct hosts, found $hosts hosts"
echo PASS
