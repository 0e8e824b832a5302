#!/usr/bin/env bash
# PMIx publish on one Slurm host, lookup from the others, across job steps.
source "$(dirname "$0")/lib.sh"
run_logged out salloc -N3 --ntasks-per-node=1 -p "$PARTITION" "$SLIPWAY" launch "$(pmix_topology publish_hosts)"
[ "$status" -eq 0 ] || fail "salloc slipway launch exited $status"
expect_count out "^directory\.0: probe: rank 0 publish catalog-endpoint SUCCESS$" 1
expect_count out "^reader\.[01]: probe: rank [12] lookup catalog-endpoint = tcp://10\.9\.8\.7:6000 from slipway-pmix-publish-hosts-[0-9a-f]+ rank 0$" 2
echo PASS
