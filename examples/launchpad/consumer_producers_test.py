# Launchpad's examples/consumer_producers/launch_test.py on slipway (Apache-2.0
# original, Copyright 2020 DeepMind Technologies Limited): a unit test of a
# program that runs the whole program. Launchpad's test launches it with
# launch_type='test_mt', turns the consumer's run() off (disable_run) and
# calls the consumer's step() from the test through a dereferenced handle.
# slipway has neither: its launch type 'test' runs the program under
# `slipway run` (every node its own process, as in production) with a time
# limit and returns its outcome (sw.Outcome: success, failed_task, traceback,
# output), so this test checks that the consumer ran its 10 steps from
# the program's output instead. absltest becomes the standard library's
# unittest.
#
#   /usr/bin/python3 examples/launchpad/consumer_producers_test.py

"""slipway integration test for the consumer_producers example."""

import os
import sys
import tempfile
import unittest

import slipway as sw

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from consumer_producers import make_program  # noqa: E402  (the example beside this file)


class LaunchTest(unittest.TestCase):

  def test_consumer_steps(self):
    """Runs the program and makes sure the consumer can run 10 steps."""
    program = make_program(num_producers=2)

    with tempfile.TemporaryDirectory() as scratch:
      # Launch all nodes declared by the program, with a time limit; the
      # topology and the run directory go to a scratch directory.
      outcome = sw.launch(program, launch_type='test', timeout=120, argv=[
          __file__, '--toml', os.path.join(scratch, 'program.toml'),
          '--run-root', scratch])

    # Success criteria for this integration test defined as consumer being
    # able to take 10 steps, each getting every producer's result.
    self.assertTrue(outcome.success, outcome.output)
    steps = [line for line in outcome.output.splitlines()
             if line == 'consumer.0: Results: [0, 1]']
    self.assertEqual(len(steps), 10, outcome.output)


if __name__ == '__main__':
  unittest.main()
