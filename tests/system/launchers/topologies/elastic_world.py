"""An elastic torch world for the tests that resize it:
    elastic_world.py MARKER [HOLDING_EPOCHS [SIZE]]
In every epoch its ranks form the world and say where they run; in the
first HOLDING_EPOCHS epochs (1 by default), and with SIZE in any epoch whose
world is smaller than SIZE, they then block in collectives until the world
is resized (the test takes a host away or scales it; a satellite job
brings a host back); in a later epoch they train a few steps and finish."""
import os
import socket
import sys
import time
import torch
import torch.distributed as dist

epoch = int(os.environ["SLIPWAY_EPOCH"])
holding_epochs = int(sys.argv[2]) if len(sys.argv) > 2 else 1
size = int(sys.argv[3]) if len(sys.argv) > 3 else 0
dist.init_process_group("gloo", init_method="env://")
rank, world = dist.get_rank(), dist.get_world_size()
t = torch.tensor([1.0])
dist.all_reduce(t)
assert t.item() == world
print(f"rank {rank} world {world} epoch {epoch} on {socket.gethostname()} formed", flush=True)
if epoch < holding_epochs or world < size:
    while True:  # stands for a long training run: only the test ends it
        dist.all_reduce(t)
        time.sleep(0.2)
for _ in range(3):
    dist.all_reduce(t)
print(f"rank {rank} world {world} epoch {epoch} trained", flush=True)
dist.destroy_process_group()
