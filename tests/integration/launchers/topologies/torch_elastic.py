"""A trainer that all-reduces every 0.1 s and prints one line per step
(rank, world size, epoch, master port) until the file argv[1] exists; the
ranks agree on stopping through the all-reduce itself, so none is left
alone in a collective."""
import os
import sys
import time
import torch
import torch.distributed as dist

done = sys.argv[1]
epoch = int(os.environ["SLIPWAY_EPOCH"])
assert os.environ["TORCHELASTIC_RESTART_COUNT"] == str(epoch)
dist.init_process_group("gloo", init_method="env://")
rank, world = dist.get_rank(), dist.get_world_size()
assert world == int(os.environ["SLIPWAY_REPLICAS"])
step = 0
while True:
    t = torch.tensor([1.0, 1.0 if os.path.exists(done) else 0.0])
    dist.all_reduce(t)
    assert t[0].item() == world
    print(f"rank {rank} world {world} epoch {epoch} port {os.environ['MASTER_PORT']} step {step}",
          flush=True)
    if t[1].item() > 0:
        break
    step += 1
    time.sleep(0.1)
dist.destroy_process_group()
