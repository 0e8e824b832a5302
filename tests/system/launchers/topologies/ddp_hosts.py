"""One DDP step over gloo with one replica per host; prints the host so the
test can check the spread. Reads nothing but env://."""
import os
import socket
import torch
import torch.distributed as dist

dist.init_process_group("gloo", init_method="env://")
rank, world = dist.get_rank(), dist.get_world_size()
t = torch.tensor([float(rank)])
dist.all_reduce(t)
assert t.item() == sum(range(world)), t
model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(4, 1))
torch.manual_seed(rank)
model(torch.randn(8, 4)).pow(2).mean().backward()
grads = torch.cat([p.grad.flatten() for p in model.parameters()])
all_grads = [torch.zeros_like(grads) for _ in range(world)]
dist.all_gather(all_grads, grads)
assert all(torch.allclose(all_grads[0], g) for g in all_grads), "gradients differ"
print(f"rank {rank}/{world} on {socket.gethostname()}: allreduce ok, gradients agree")
dist.destroy_process_group()
