#!/usr/bin/env bash
# mpi4py (Debian's python3-mpi4py) as 4 ranks under `slipway run`.
source "$(dirname "$0")/lib.sh"
/usr/bin/python3 -c "import mpi4py" 2>/dev/null || { echo "SKIP: python3-mpi4py is not installed"; exit 77; }
run_slipway "$WORK/out" run "$(pmix_topology mpi4py)"
expect_status 0
expect_count "$WORK/out" "^py\.[0-3]: mpi4py rank [0-3] of 4 sum 10$" 4
echo PASS
