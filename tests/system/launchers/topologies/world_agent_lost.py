"""A torch world of two ranks on two hosts. In epoch 0 both form the world,
say where they run, and then block in a collective until the test kills a
host; in the next epoch they train a step and finish."""
import os
import socket
import time
import torch
import torch.distributed as dist

epoch = int(os.environ["SLIPWAY_EPOCH"])
dist.init_process_group("gloo", init_method="env://")
rank = dist.get_rank()
t = torch.tensor([1.0])
dist.all_reduce(t)
print(f"rank {rank} epoch {epoch} on {socket.gethostname()} formed", flush=True)
if epoch == 0:
    while True:  # stands for a long training run: only the test ends it
        dist.all_reduce(t)
        time.sleep(0.2)
dist.all_reduce(t)
print(f"rank {rank} epoch {epoch} trained", flush=True)
dist.destroy_process_group()
