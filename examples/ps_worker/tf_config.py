"""ps_worker: reads TF_CONFIG the way TensorFlow's TFConfigClusterResolver
does and checks it against the SLIPWAY_* contract. TensorFlow is not
installed on slipway's build machines, so this script stops there; with
TensorFlow, a task would instead start tf.distribute.Server (ps, worker) or
run a ParameterServerStrategy coordinator (chief) from the same TF_CONFIG.
It binds its own server address once, as a TensorFlow server would."""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
import slipway_example as ex  # noqa: E402

ex.check_contract()
ex.print_contract_env()
config = json.loads(os.environ["TF_CONFIG"])
cluster, task = config["cluster"], config["task"]
node, replica = os.environ["SLIPWAY_NODE"], int(os.environ["SLIPWAY_REPLICA"])
ex.check(task == {"type": node, "index": replica}, f"TF_CONFIG task is {task}")
expected = {"chief": 1, "ps": 2, "worker": 2}
ex.check({job: len(addresses) for job, addresses in cluster.items()} == expected,
         f"TF_CONFIG cluster is {cluster}, expected jobs {expected}")
own = cluster[node][replica]
ex.check(own.rsplit(":", 1)[1] == os.environ["SLIPWAY_PORT_TF_SERVER"],
         f"own address {own} is not on SLIPWAY_PORT_TF_SERVER")
ex.listen("tf_server").close()  # the port is ours to bind
print(f"{node} {replica}: cluster {json.dumps(cluster, sort_keys=True)}", flush=True)
