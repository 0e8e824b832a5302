"""mpi: an MPI program in mpi4py. Every rank contributes its rank to an
allreduce and checks the sum, and that MPI's world matches the node's
replicas. The ranks find each other through PMIx, which slipway's launch
layer provides for framework = "mpi"."""
import os
import sys

from mpi4py import MPI

comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()
replicas = int(os.environ["SLIPWAY_REPLICAS"])
if size != replicas:
    print(f"FAILED: MPI world has {size} ranks, the node has {replicas} replicas", file=sys.stderr)
    sys.exit(1)
total = comm.allreduce(rank, op=MPI.SUM)
if total != size * (size - 1) // 2:
    print(f"FAILED: allreduce gave {total}", file=sys.stderr)
    sys.exit(1)
print(f"rank {rank}/{size} on {MPI.Get_processor_name()}: allreduce sum {total}", flush=True)
