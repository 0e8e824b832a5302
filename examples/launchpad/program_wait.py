# Launchpad's examples/program_wait/launch.py on slipway (Apache-2.0 original,
# Copyright 2020 DeepMind Technologies Limited): nodes that end cleanly when
# the program stops, each through another life-cycle call. Ported by
# changing its imports: `import slipway as sw` for `import launchpad as lp`,
# the standard library's logging for absl's (plus basicConfig: absl logs INFO
# by default). Beyond the imports: the nodes are PyNodes (Launchpad's
# CourierNode of a plain function; slipway's CourierNode serves an object),
# the labels lose their leading '_' (a slipway node name starts with a
# letter), absl's app.run becomes a plain call, and main() has no controller
# to wait on: for a local launch sw.launch becomes `slipway run`, which
# returns when the program has ended. The rest is Launchpad's code as it
# was, in its own indentation.
#
#   /usr/bin/python3 examples/launchpad/program_wait.py                # runs it here
#   /usr/bin/python3 examples/launchpad/program_wait.py --launch=toml  # writes its topology

"""This example presents clean node termination."""



import logging
import sys
import threading
import time

import slipway as sw

logging.basicConfig(level=logging.INFO, format='%(message)s')


def _sleep():
  while not sw.wait_for_stop(1):
    logging.info('Sleeping again...')
  logging.info('Clean termination of _sleep node')
  time.sleep(2)


def _wait_for_stop():
  sw.wait_for_stop()
  logging.info('Clean termination of _wait_for_stop node')
  time.sleep(2)


def _stop_event():
  sw.stop_event().wait()
  logging.info('Clean termination of _stop_event node')
  time.sleep(2)


def _register_stop_handler():
  """Showcases the use of sw.register_stop_handler."""
  stop = threading.Event()

  def _stop_handler():
    logging.info('_stop_handler called')
    stop.set()

  sw.register_stop_handler(_stop_handler)
  stop.wait()
  logging.info('Clean termination of _register_stop_handler node')
  time.sleep(2)


def _stop_program():
  time.sleep(4)
  sw.stop()


def make_program() -> sw.Program:
  """Define the distributed program topology."""
  program = sw.Program('program_wait')
  program.add_node(sw.PyNode(_sleep), label='sleep')
  program.add_node(sw.PyNode(_wait_for_stop), label='wait_for_stop')
  program.add_node(sw.PyNode(_stop_event), label='stop_event')
  program.add_node(sw.PyNode(_register_stop_handler),
                   label='register_stop_handler')
  program.add_node(sw.PyNode(_stop_program), label='stop_program')
  return program


def main(argv):
  del argv  # --launch=... is sw.launch's own flag
  program = make_program()
  sw.launch(program)


if __name__ == '__main__':
  main(sys.argv)
