"""ddp: data-parallel training with torch.distributed over gloo, on CPU.
The script reads nothing but env:// (MASTER_ADDR, MASTER_PORT, RANK,
WORLD_SIZE, set by slipway for framework = "torch"): the same file runs
under torchrun. It trains a small linear model for --epochs epochs of
--steps steps, each gradient averaged by DistributedDataParallel's
allreduce, and checks that every rank ends with the same weights.

It resumes (docs/resume.md): after each epoch rank 0 saves the model, the
optimizer and the epoch to ddp.pt in the node's state directory
($SLIPWAY_STATE_DIR, atomically: torch.save into sw.save_state), and at
start every rank loads that file when there is one (`rank R/W: resumed at
epoch E (resume N)`, E the epochs done) and goes on with the next epoch.
A checkpoint notice that stops the program ends the world after its
epoch: the ranks agree on it by an allreduce, so none waits for another.
Outside slipway (no state directory) it saves nothing; under torchrun
without slipway's package it trains as well."""
import argparse
import os
import threading

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel

try:
    import slipway as sw  # checkpoint notices, the state directory (docs/python.md)
except ImportError:
    sw = None

parser = argparse.ArgumentParser()
parser.add_argument("--steps", type=int, default=3, help="steps per epoch")
parser.add_argument("--epochs", type=int, default=1)
args = parser.parse_args()

stop = threading.Event()
if sw is not None:
    sw.on_checkpoint(lambda notice: stop.set() if notice.stop else None)
STATE = os.path.join(sw.state_dir(), "ddp.pt") if sw is not None and sw.state_dir() else None


def save(model, optimizer, epoch):
    """Rank 0's checkpoint, atomically: the next start finds the old file or
    the new one, whole."""
    sw.save_state("ddp.pt", lambda f: torch.save(
        {"model": model.module.state_dict(), "optimizer": optimizer.state_dict(), "epoch": epoch}, f))


dist.init_process_group(backend="gloo", init_method="env://")
rank, world = dist.get_rank(), dist.get_world_size()
assert rank == int(os.environ["SLIPWAY_REPLICA"]), "RANK is not the replica index"
assert world == int(os.environ["SLIPWAY_REPLICAS"]), "WORLD_SIZE is not the replica count"

# Every rank takes part in a plain allreduce first: sum of 0..world-1.
total = torch.tensor([float(rank)])
dist.all_reduce(total, op=dist.ReduceOp.SUM)
assert total.item() == world * (world - 1) / 2, f"allreduce gave {total.item()}"

torch.manual_seed(1234 + rank)  # each rank sees different data
module = torch.nn.Linear(8, 1)
optimizer = torch.optim.SGD(module.parameters(), lr=0.05)
done = 0  # epochs done
if STATE is not None and os.path.exists(STATE):
    saved = torch.load(STATE)
    module.load_state_dict(saved["model"])
    optimizer.load_state_dict(saved["optimizer"])
    done = saved["epoch"]
    print(f"rank {rank}/{world}: resumed at epoch {done} (resume {sw.resume_count()})", flush=True)
model = DistributedDataParallel(module)
true_weights = torch.arange(8, dtype=torch.float32).unsqueeze(1) / 8
for epoch in range(done + 1, args.epochs + 1):
    for i in range(1, args.steps + 1):
        step = (epoch - 1) * args.steps + i
        inputs = torch.randn(32, 8)
        loss = torch.nn.functional.mse_loss(model(inputs), inputs @ true_weights)
        optimizer.zero_grad()
        loss.backward()  # DDP averages the gradients across ranks here
        optimizer.step()
        print(f"rank {rank}/{world} step {step}: loss {loss.item():.4f}", flush=True)
    if rank == 0 and STATE is not None:
        save(model, optimizer, epoch)
    stopping = torch.tensor([1.0 if stop.is_set() else 0.0])
    dist.all_reduce(stopping, op=dist.ReduceOp.MAX)  # a notice seen by any rank stops them all here
    if stopping.item() > 0 and epoch < args.epochs:
        print(f"rank {rank}/{world}: stopping after epoch {epoch} for a checkpoint notice", flush=True)
        dist.destroy_process_group()
        raise SystemExit(0)

# The weights must agree on every rank: compare with rank 0's copy.
weights = torch.cat([p.detach().flatten() for p in model.parameters()])
reference = weights.clone()
dist.broadcast(reference, src=0)
assert torch.equal(weights, reference), "ranks disagree on the model after training"
print(f"rank {rank}/{world}: {args.epochs * args.steps} steps done, weights agree across ranks", flush=True)
dist.destroy_process_group()
