"""--launch=test on a program whose node raises (node_raises.py beside this
file): sw.launch(launch_type='test') returns an Outcome that is not a
success, names the failed task, and carries its traceback and the line
that made the node."""

import os
import sys
import tempfile
import unittest

import slipway as sw

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import node_raises  # noqa: E402


def _defining_line():
  with open(os.path.join(HERE, 'node_raises.py')) as f:
    for number, line in enumerate(f, 1):
      if '# the failing node' in line:
        return number
  raise AssertionError('node_raises.py has no "# the failing node" line')


class NodeRaisesTest(unittest.TestCase):

  def test_outcome_names_the_failure(self):
    with tempfile.TemporaryDirectory() as scratch:
      outcome = sw.launch(node_raises.make_program(), launch_type='test', timeout=120, argv=[
          __file__, '--toml', os.path.join(scratch, 'program.toml'), '--run-root', scratch])
    self.assertFalse(outcome.success, outcome.output)
    self.assertFalse(outcome.timed_out, outcome.output)
    self.assertNotEqual(outcome.exit_status, 0)
    self.assertEqual(outcome.failed_task, 'worker.0', outcome.output)
    self.assertIn('ValueError: worker gives up on purpose', outcome.traceback)
    self.assertIn("raise ValueError('worker gives up on purpose')", outcome.traceback)
    self.assertIn('node_raises.py:%d' % _defining_line(), outcome.output)


if __name__ == '__main__':
  unittest.main()
