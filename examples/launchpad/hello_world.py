# Launchpad's examples/hello_world/launch.py on slipway (Apache-2.0 original,
# Copyright 2020 DeepMind Technologies Limited). Ported by changing its
# imports: `import slipway as sw` for `import launchpad as lp`, and absl's
# app.run for a plain call (absl is not in the standard library). One change
# beyond the imports: slipway has no PyClassNode (an object whose run() is
# called), so the node is a CourierNode, which constructs the object, serves
# its public methods (none here) and calls its run(). The rest is
# Launchpad's code as it was, in its own indentation.
#
#   /usr/bin/python3 examples/launchpad/hello_world.py                # runs it here (slipway run)
#   /usr/bin/python3 examples/launchpad/hello_world.py --launch=toml  # writes its topology

"""This example is the simplest possible Launchpad program."""


import sys

import slipway as sw


class HelloWorld:
  """A node that prints hello world and exits."""

  def __init__(self) -> None:
    """Initializes Hello World."""
    pass

  def run(self) -> None:
    """Entry point."""
    print('Hello World!!!')


def make_program() -> sw.Program:
  """Define the program topology."""
  program = sw.Program('hello_world')

  node = sw.CourierNode(HelloWorld)  # lp.PyClassNode(HelloWorld)
  program.add_node(node, label='hello_printer')
  return program


def main(argv):
  del argv  # --launch=... is sw.launch's own flag
  program = make_program()
  sw.launch(program)


if __name__ == '__main__':
  main(sys.argv)
