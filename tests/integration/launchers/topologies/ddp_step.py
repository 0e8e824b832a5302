"""One DDP training step with gloo on CPU, reading nothing but env://.
Checks that every rank took part (allreduce of ranks) and that the model
is identical on every rank after the step."""
import os
import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

dist.init_process_group("gloo", init_method="env://")
rank, world = dist.get_rank(), dist.get_world_size()
assert world == int(os.environ["WORLD_SIZE"]) == 3, world
assert rank == int(os.environ["RANK"]) == int(os.environ["SLIPWAY_REPLICA"])

t = torch.tensor([float(rank)])
dist.all_reduce(t)
assert t.item() == sum(range(world)), t

torch.manual_seed(rank)  # different data per rank; DDP syncs the model
model = DDP(torch.nn.Linear(4, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
loss = model(torch.randn(8, 4)).pow(2).mean()
loss.backward()
opt.step()

flat = torch.cat([p.detach().flatten() for p in model.parameters()])
gathered = [torch.zeros_like(flat) for _ in range(world)]
dist.all_gather(gathered, flat)
assert all(torch.equal(gathered[0], g) for g in gathered), "models diverged"
print(f"rank {rank}/{world} step done, loss {loss.item():.4f}, models agree")
dist.destroy_process_group()
