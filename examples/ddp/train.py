"""ddp: data-parallel training with torch.distributed over gloo, on CPU.
The script reads nothing but env:// (MASTER_ADDR, MASTER_PORT, RANK,
WORLD_SIZE, set by slipway for framework = "torch"): the same file runs
under torchrun. It trains a small linear model for a few steps, each
gradient averaged by DistributedDataParallel's allreduce, and checks that
every rank ends with the same weights."""
import argparse
import os

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel

parser = argparse.ArgumentParser()
parser.add_argument("--steps", type=int, default=3)
args = parser.parse_args()

dist.init_process_group(backend="gloo", init_method="env://")
rank, world = dist.get_rank(), dist.get_world_size()
assert rank == int(os.environ["SLIPWAY_REPLICA"]), "RANK is not the replica index"
assert world == int(os.environ["SLIPWAY_REPLICAS"]), "WORLD_SIZE is not the replica count"

# Every rank takes part in a plain allreduce first: sum of 0..world-1.
total = torch.tensor([float(rank)])
dist.all_reduce(total, op=dist.ReduceOp.SUM)
assert total.item() == world * (world - 1) / 2, f"allreduce gave {total.item()}"

torch.manual_seed(1234 + rank)  # each rank sees different data
model = DistributedDataParallel(torch.nn.Linear(8, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
true_weights = torch.arange(8, dtype=torch.float32).unsqueeze(1) / 8
for step in range(1, args.steps + 1):
    inputs = torch.randn(32, 8)
    loss = torch.nn.functional.mse_loss(model(inputs), inputs @ true_weights)
    optimizer.zero_grad()
    loss.backward()  # DDP averages the gradients across ranks here
    optimizer.step()
    print(f"rank {rank}/{world} step {step}: loss {loss.item():.4f}", flush=True)

# The weights must agree on every rank: compare with rank 0's copy.
weights = torch.cat([p.detach().flatten() for p in model.parameters()])
reference = weights.clone()
dist.broadcast(reference, src=0)
assert torch.equal(weights, reference), "ranks disagree on the model after training"
print(f"rank {rank}/{world}: {args.steps} steps done, weights agree across ranks", flush=True)
dist.destroy_process_group()
