#!/usr/bin/env bash
# A real torch DDP step with gloo across 3 replicas whose code reads nothing
# but env://, under framework = "torch".
source "$(dirname "$0")/lib.sh"
/usr/bin/python3 -c "import torch.distributed" || fail "python3-torch is not installed (scripts/setup.sh installs it)"
run_slipway "$WORK/out" run "$(topology torch_ddp)"
expect_status 0
for r in 0 1 2; do expect_line "$WORK/out" "^trainer.$r: rank $r/3 step done, loss [0-9.]+, models agree$"; done
echo PASS
