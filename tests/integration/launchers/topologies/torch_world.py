"""A torch world of three ranks in which rank 1 dies in epoch 0 while ranks
0 and 2 block in a collective (as NCCL ranks would): slipway must stop the
world and start it again whole, as epoch 1, where every rank completes."""
import os
import sys
import time
import torch
import torch.distributed as dist

epoch = int(os.environ["SLIPWAY_EPOCH"])
assert os.environ["TORCHELASTIC_RESTART_COUNT"] == str(epoch)
dist.init_process_group("gloo", init_method="env://")
rank, world = dist.get_rank(), dist.get_world_size()
t = torch.tensor([1.0])
dist.all_reduce(t)
assert t.item() == world
print(f"rank {rank} epoch {epoch} attempt {os.environ['SLIPWAY_ATTEMPT']} "
      f"port {os.environ['MASTER_PORT']} formed", flush=True)
if epoch == 0 and rank == 1:
    os._exit(3)  # dies; its peers are about to block in the next collective
if epoch == 0:
    dist.all_reduce(t)  # blocks: rank 1 is gone (gloo's default timeout is 30 min)
    print(f"rank {rank} got past the collective", flush=True)
    sys.exit(0)
for _ in range(3):
    dist.all_reduce(t)
print(f"rank {rank} epoch {epoch} trained", flush=True)
dist.destroy_process_group()
