"""slipway's Python package, for programs run by slipway.

The program API (Launchpad's model; docs/python.md):

    import slipway as sw
    p = sw.Program("impala")
    learner = p.add_node(sw.CourierNode(Learner), label="learner", gpus=1)
    with p.group("actor", replicas=4):
        p.add_node(sw.PyNode(actor, learner=learner))
    sw.launch(p)    # --launch=local|slurm|sbatch|toml|test

slipway.program (Program, group, handles), slipway.nodes (PyNode,
CourierNode, ReplayNode, ExecNode, Table and its samplers and rate
limiters), slipway.rpc (pickled courier RPC, batched_handler, and the trust
model: only tasks of the same program are unpickled), slipway.launch,
slipway.outcome (how a run ended: the run's outcome.json, sw.Outcome),
slipway.lifecycle (stop, wait_for_stop, stop_event, stop handlers),
slipway.checkpoint (checkpoint notices: checkpoint_requested,
on_checkpoint), slipway.resume (resume_count, state_dir, save_state),
slipway.program_node (what each task runs), slipway.shipping (nodes
pickled with cloudpickle for their tasks).

Lower layers: slipway.courier (courier RPC over UCX, bytes in and out) and
slipway.replay (the client of a replay node: tables, queues, pools).
"""

# The project's version (CMakeLists.txt; python/pyproject.toml says the same).
__version__ = "0.1.0"

from .checkpoint import Notice, checkpoint_requested, on_checkpoint
from .launch import Outcome, TopologyError, launch
from .lifecycle import register_stop_handler, stop, stop_event, wait_for_stop
from .nodes import (CourierNode, ExecNode, Fifo, Lifo, MaxHeap, MinHeap, MinSize, Prioritized, PyNode,
                    ReplayNode, SampleToInsertRatio, Table, Uniform)
from .program import Handle, Program, ProgramError
from .resume import resume_count, save_state, state_dir
from .rpc import CourierClient, RemoteError, batched_handler

__all__ = ["Program", "ProgramError", "Handle", "PyNode", "CourierNode", "ReplayNode", "ExecNode",
           "Table", "Uniform", "Fifo", "Lifo", "MaxHeap", "MinHeap", "Prioritized", "MinSize",
           "SampleToInsertRatio", "launch", "Outcome", "TopologyError", "stop", "stop_event",
           "wait_for_stop", "register_stop_handler", "batched_handler", "CourierClient",
           "RemoteError", "Notice", "checkpoint_requested", "on_checkpoint", "resume_count", "state_dir",
           "save_state"]
