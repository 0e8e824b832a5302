#!/usr/bin/python3
"""The trainer `slipway-bench elastic` runs under slipway and under torchrun
alike: a gloo all-reduce every 0.2 s, each step appended as one line
`step N world W rank R TIME` (TIME: seconds since the epoch) to the file
argv[1], which every host of the test cluster shares."""
import datetime
import os
import sys
import time

import torch
import torch.distributed as dist

out = sys.argv[1]
dist.init_process_group("gloo", init_method="env://", timeout=datetime.timedelta(seconds=60))
rank, world = dist.get_rank(), dist.get_world_size()
t = torch.ones(1000)
step = 0
while True:
    dist.all_reduce(t)
    with open(out, "a", encoding="ascii") as f:
        f.write(f"step {step} world {world} rank {rank} {time.time():.3f}\n")
    step += 1
    time.sleep(0.2)
