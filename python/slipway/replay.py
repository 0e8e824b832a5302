"""The client of slipway's replay and queue service (a node of type
"replay", docs/topology.md "Replay nodes"), over courier RPC
(slipway.courier), speaking the wire protocol of docs/replay.md.

    from slipway import replay

    rb = replay.Client("replay")                            # every shard of node "replay"
    key = rb.insert(data, priorities={"experience": 1.0})   # data: bytes (or any buffer)
    with rb.writer("experience", max_in_flight=8) as w:     # pipelined inserts, backpressure
        w.append(data, priority=1.0)
    batch = rb.sample("experience", n=32, timeout=60)       # [Sample(key, data, priority, ...)]
    for batch in rb.sampler("experience", batch_size=32, prefetch=4): ...
    rb.update_priorities("experience", {key: 0.5})
    rb.delete("experience", [key]); rb.reset("experience"); rb.checkpoint()
    rb.server_info()                                        # {table: TableInfo}, as Reverb's
    rb.info()                                               # [ShardInfo], one per shard

    q = replay.Queue("replay", "tasks")                     # pickled objects, FIFO per shard
    q.put(obj); obj = q.get(timeout=10)                     # replay.Empty when none came

    pool = replay.Pool("replay", "jobs", worker_node="worker")   # a kind = "work" table
    results = pool.map(square, range(100))                  # on the caller
    pool.serve({"square": square})                          # on every task of node "worker"

Each replica of a replay node is a shard with items of its own: inserts go
to the shards in turn (starting at this task's replica), samples and gets
ask them in turn. Keys carry their shard, so update_priorities, delete and
a work item's ack go to the shard that holds the item.

Retries: a call that fails because its shard restarted or is restarting
(courier's peer_restarted, peer_lost, timeout while no address is
published) is sent again until the caller's own timeout has passed: info,
sample, update_priorities, delete, reset, checkpoint, lease, ack. An insert
whose reply did not come is re-sent with the same sequence number (the
server answers a repeat it remembers with the first keys; a shard that
restarted from a checkpoint may store it again: at least once). A blocked
call (rate limiter, empty queue) is parked by the server for at most 10 s at
a time and asked again until the timeout (None: no end).

A Pool's work items are handed out on lease, each with a random token that
its ack or nack must bring (Client.lease returns Lease objects). Inside
slipway a client keeps the leases it holds in a private journal file of the
run directory; its first lease() in a relaunched task returns (nacks) the
leases its task's earlier attempts held, so an item whose worker died goes
out again at once, or when its lease expires: a task may run more than
once, so use pools for idempotent work (docs/replay.md, "Lease journals").
"""


from ._replay_client import Client
from ._replay_pool import Pool, Queue
from ._replay_protocol import (Empty, Lease, PoolTaskError, ReplayError, ReplayTimeout, Sample, ShardInfo,
                               TableInfo)
from ._replay_writer import Writer

__all__ = ["Client", "Writer", "Queue", "Pool", "Sample", "Lease", "TableInfo", "ShardInfo", "ReplayError",
           "ReplayTimeout", "Empty", "PoolTaskError"]

# The public names are this module's: reprs, tracebacks and pickles name
# slipway.replay, as they did when everything lived here.
for _public in (Client, Writer, Queue, Pool, Sample, Lease, TableInfo, ShardInfo, ReplayError, ReplayTimeout,
                Empty, PoolTaskError):
    _public.__module__ = __name__
del _public
