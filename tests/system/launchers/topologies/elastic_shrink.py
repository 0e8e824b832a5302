"""An elastic torch world. In epoch 0 its ranks form the world, say where
they run, and then block in collectives until the test takes a host away;
in a later epoch they train a few steps and finish."""
import os
import socket
import time
import torch
import torch.distributed as dist

epoch = int(os.environ["SLIPWAY_EPOCH"])
dist.init_process_group("gloo", init_method="env://")
rank, world = dist.get_rank(), dist.get_world_size()
t = torch.tensor([1.0])
dist.all_reduce(t)
assert t.item() == world
print(f"rank {rank} world {world} epoch {epoch} on {socket.gethostname()} formed", flush=True)
if epoch == 0:
    while True:  # stands for a long training run: only the test ends it
        dist.all_reduce(t)
        time.sleep(0.2)
for _ in range(3):
    dist.all_reduce(t)
print(f"rank {rank} world {world} epoch {epoch} trained", flush=True)
dist.destroy_process_group()
