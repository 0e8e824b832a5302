# Launchpad's examples/consumer_producers (program.py and launch.py, in one
# file) on slipway (Apache-2.0 original, Copyright 2020 DeepMind Technologies
# Limited). Ported by changing its imports: `import slipway as sw` for
# `import launchpad as lp`, the standard library's logging and argparse for
# absl's logging, flags and app (absl is not in the standard library; absl
# logs INFO by default, hence the basicConfig line). The rest is Launchpad's
# code as it was, in its own indentation.
#
#   /usr/bin/python3 examples/launchpad/consumer_producers.py [--num_producers=N]  # runs it here
#   /usr/bin/python3 examples/launchpad/consumer_producers.py --launch=toml        # writes its topology

"""This example introduces basic notions in Launchpad."""

import argparse
import logging
import sys
from typing import List

import slipway as sw

logging.basicConfig(level=logging.INFO, format='%(message)s')

_FLAGS = argparse.ArgumentParser()
_FLAGS.add_argument('--num_producers', type=int, default=2,
                    help='The number of concurrent producers.')


class Consumer:
  """A simple consumer that calls producers to perform some work."""

  def __init__(
      self,
      producers: List[sw.CourierClient],
  ) -> None:
    """Initializes a Consumer.

    Args:
      producers: a list of Producer handles.
    """
    self._producers = producers

  def run(self) -> None:
    """Entry point of the consumer."""
    # As a toy example we run 10 steps to interact with producers. Typically,
    # this would be replaced with an infinite loop or a loop with some stopping
    # criterion.
    for _ in range(10):
      self.step()

    # Stop the whole program (consumer and producers). Simply returning here
    # would stop the consumer but not the producers.
    sw.stop()

  def step(self) -> None:
    """Tells all the producers to perform one step of work."""
    # Call the producers to asynchronously produce work given a dummy context
    # represented by a counter.
    futures = [
        producer.futures.work(context)
        for context, producer in enumerate(self._producers)
    ]

    # Block to gather the results of all the producers.
    results = [future.result() for future in futures]
    logging.info('Results: %s', results)


class Producer:
  """A bare-bones producer."""

  def work(self, context: int) -> int:
    # Add code here to perform work. Note that this method can be called in
    # multiple threads because of the use of Courier futures, and so it has to
    # be thread safe! In this example the producer is stateless, so thread
    # safety is not a concern.
    return context


def make_program(num_producers: int) -> sw.Program:
  """Define the distributed program topology."""
  program = sw.Program('consumer_producers')

  # Use `program.group()` to group homogeneous nodes.
  with program.group('producer'):
    # Add a `CourierNode` to the program. `sw.CourierNode()` takes the producer
    # constructor and its arguments, and exposes it as an RPC server.
    # `program.add_node(sw.CourierNode(...))` returns a handle to this server.
    # These handles can then be passed to other nodes.
    producers = [
        program.add_node(sw.CourierNode(Producer)) for _ in range(num_producers)
    ]

  # Launch a single consumer that connects to the list of producers.
  # Note: The use of `label` here actually creates a group with one single node.
  node = sw.CourierNode(Consumer, producers=producers)
  program.add_node(node, label='consumer')

  return program


def main(argv):
  flags, _ = _FLAGS.parse_known_args(argv[1:])  # --launch=... is sw.launch's

  # Define a program which describes the topology of communicating nodes and
  # edges. In more involved examples, several programs can be defined and
  # launched at once.
  program = make_program(num_producers=flags.num_producers)

  # Note that at launch time, none of the producers has been instantiated.
  # Producers are instantiated only at runtime.
  sw.launch(program)


if __name__ == '__main__':
  main(sys.argv)
