# Launchpad's examples/batching/launch.py on slipway (Apache-2.0 original,
# Copyright 2020 DeepMind Technologies Limited): a central server whose
# method batches the concurrent calls of its clients, as a central inference
# server does. Ported by changing its imports: `import slipway as sw` for
# `import launchpad as lp`, the standard library's logging for absl's (absl
# is not in the standard library; it logs INFO by default, hence the
# basicConfig line), and plain lists for numpy (np.sum over the batch, np.tile
# of the running sum) so that it needs the standard library only. Beyond the
# imports: absl's app.run becomes a plain call, and the --num_clients flag a
# constant (every task rebuilds the program by calling make_program(), so a
# flag given at launch would not reach the tasks: see docs/python.md). The
# rest is Launchpad's code as it was, in its own indentation.
#
#   /usr/bin/python3 examples/launchpad/batched_inference.py                # runs it here
#   /usr/bin/python3 examples/launchpad/batched_inference.py --launch=toml  # writes its topology

R"""This example shows how to introduce batched handlers.

It is useful for centralised inference handled in Python.
"""


import logging
import sys
import time

import slipway as sw

logging.basicConfig(level=logging.INFO, format='%(message)s')

_NUM_CLIENTS = 2  # The number of clients.


class Client:
  """A simple client that calls batched server method."""

  def __init__(self, client_id: int, server: sw.CourierClient) -> None:
    """Initializes a Client.

    Args:
      client_id: Id of the client.
      server: Server's handler.
    """
    self._client_id = client_id
    self._server = server

  def run(self) -> None:
    """Entry point of the client."""
    for x in range(self._client_id, self._client_id + 10):
      result = self._server.compute([x, x + 1])
      logging.info('Result: %s', result)
    time.sleep(5)
    sw.stop()


class Server:
  """A simple server which sums ."""

  def __init__(self, batch_size) -> None:
    self._sum = None
    # Launchpad: lp.batched_handler(batch_size=batch_size)(self.compute);
    # slipway's marks a function, and a bound method takes no attributes.
    self.compute = sw.batched_handler(batch_size=batch_size)(
        lambda values: Server.compute(self, values))

  def compute(self, values):
    result = [sum(column) for column in zip(*values)]  # np.sum(values, axis=0)
    if self._sum is None:
      self._sum = result
    else:
      self._sum = [a + b for a, b in zip(self._sum, result)]  # self._sum += result
    return [list(self._sum) for _ in values]  # np.tile(self._sum, (len(values), 1))


def make_program() -> sw.Program:
  """Define the program topology."""
  program = sw.Program('batching')
  batch_size = _NUM_CLIENTS
  # slipway gives a CourierNode's server a thread per call a batched method
  # may hold (Launchpad's courier_kwargs={'thread_pool_size': batch_size}).
  server = program.add_node(sw.CourierNode(Server, batch_size), label='server')
  with program.group('clients'):
    for client_id in range(_NUM_CLIENTS):
      program.add_node(sw.CourierNode(Client, client_id, server))
  return program


def main(argv):
  del argv  # --launch=... is sw.launch's own flag
  program = make_program()
  sw.launch(program)


if __name__ == '__main__':
  main(sys.argv)
