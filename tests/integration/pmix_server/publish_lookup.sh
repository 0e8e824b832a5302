#!/usr/bin/env bash
# A PMIx client publishes in one node; clients of another node look it up.
source "$(dirname "$0")/lib.sh"
run_slipway "$WORK/out" run "$(pmix_topology publish_lookup)"
expect_status 0
expect_line "$WORK/out" "^directory\.0: probe: rank 0 publish catalog-endpoint SUCCESS$"
expect_count "$WORK/out" "^reader\.[01]: probe: rank [12] lookup catalog-endpoint = tcp://10\.1\.2\.3:7000 from slipway-pmix-publish-[0-9a-f]+ rank 0$" 2
echo PASS
