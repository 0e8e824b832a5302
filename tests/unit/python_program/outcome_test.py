"""Unit tests of sw.Outcome read from a run's outcome.json (unit:python_program:outcome):
a colocated unit names the task that failed it and carries its traceback
file's text; a run without a usable outcome.json (none, another schema,
too large, a FIFO, a link) names nothing; the run directory is the
launcher's own line, never a task's. No slipway: the files are made here
as docs/runs.md#outcomejson says the launcher writes them."""

import json
import os
import sys
import tempfile
import unittest

SOURCE = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..", "..")
sys.path.insert(0, os.path.join(SOURCE, "python"))

import slipway as sw  # noqa: E402
from slipway import outcome as outcome_module  # noqa: E402
launch = sys.modules["slipway.launch"]

TRACEBACK = ("Traceback (most recent call last):\n"
             "  File \"prog.py\", line 9, in worker\n"
             "RuntimeError: worker gave up on purpose\n")


def colocated_record(run_dir):
    return {
        "schema": 1, "program": "colo", "run_directory": run_dir, "result": "failed", "success": False,
        "exit": 1, "message": "task waiter.0+worker.0 exited with status 1 on attempt 0; no retries allowed",
        "failed_unit": {
            "name": "waiter.0+worker.0", "attempt": 0, "epoch": 0,
            "cause": {"kind": "exit", "code": 1, "description": "exited with status 1"},
            "tasks": [
                {"name": "waiter.0", "node": "waiter", "replica": 0, "exit_status": 143, "vanished": False,
                 "failed": False, "log": None, "traceback": None},
                {"name": "worker.0", "node": "worker", "replica": 0, "exit_status": 1, "vanished": False,
                 "failed": True, "log": os.path.join(run_dir, "logs", "worker.0.log"),
                 "traceback": os.path.join(run_dir, "logs", "worker.0.traceback")},
            ],
            "tasks_omitted": 0,
        },
        "units": {"failed": 1, "done": 1},
    }


class OutcomeTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.run_dir = self.tmp.name
        os.mkdir(os.path.join(self.run_dir, "logs"))
        # What the progress lines said: a colocated unit's name, no task's.
        self.output = ("slipway: running program 'colo' (2 tasks); run directory %s\n"
                       "worker.0: Traceback (most recent call last):\n"
                       "slipway: program 'colo' failed: task waiter.0+worker.0 exited with status 1\n"
                       % self.run_dir)

    def tearDown(self):
        self.tmp.cleanup()

    def write(self, record):
        with open(os.path.join(self.run_dir, "outcome.json"), "w") as f:
            json.dump(record, f)

    def test_colocated_unit_names_the_failed_task_and_its_traceback(self):
        self.write(colocated_record(self.run_dir))
        with open(os.path.join(self.run_dir, "logs", "worker.0.traceback"), "w") as f:
            f.write(TRACEBACK)
        outcome = sw.Outcome(1, self.output, False, self.run_dir, "colo.toml")
        self.assertFalse(outcome)
        self.assertEqual(outcome.result, "failed")
        self.assertEqual(outcome.failed_unit, "waiter.0+worker.0")
        self.assertEqual(outcome.failed_task, "worker.0")
        self.assertEqual(outcome.cause["kind"], "exit")
        self.assertEqual(outcome.traceback_file, os.path.join(self.run_dir, "logs", "worker.0.traceback"))
        self.assertEqual(outcome.traceback, TRACEBACK)
        self.assertIn("failed_task='worker.0'", repr(outcome))

    def test_no_usable_outcome_names_nothing(self):
        def names_nothing():
            outcome = sw.Outcome(1, self.output, False, self.run_dir, "colo.toml")
            self.assertIsNone(outcome.record)
            self.assertIsNone(outcome.failed_task)
            self.assertIsNone(outcome.failed_unit)
            self.assertEqual(outcome.traceback, "")
        names_nothing()   # none: the progress lines are not read
        record = colocated_record(self.run_dir)
        record["schema"] = 2
        self.write(record)
        names_nothing()
        with open(os.path.join(self.run_dir, "outcome.json"), "w") as f:
            f.write("{" + " " * (outcome_module.MAX_OUTCOME_BYTES + 1) + "}")
        names_nothing()
        os.remove(os.path.join(self.run_dir, "outcome.json"))
        os.mkfifo(os.path.join(self.run_dir, "outcome.json"))
        names_nothing()   # never waits on a FIFO
        os.remove(os.path.join(self.run_dir, "outcome.json"))
        elsewhere = os.path.join(self.run_dir, "elsewhere.json")
        with open(elsewhere, "w") as f:
            json.dump(colocated_record(self.run_dir), f)
        os.symlink(elsewhere, os.path.join(self.run_dir, "outcome.json"))
        names_nothing()   # never through a link

    def test_a_succeeded_run(self):
        self.write({"schema": 1, "result": "succeeded", "success": True, "exit": 0, "failed_unit": None})
        outcome = sw.Outcome(0, "", False, self.run_dir, "ok.toml")
        self.assertTrue(outcome)
        self.assertEqual(outcome.result, "succeeded")
        self.assertIsNone(outcome.failed_task)

    def test_the_run_directory_is_the_launchers_line(self):
        forged = "w.0: slipway: running program 'x' (1 tasks); run directory /evil\n"
        self.assertIsNone(launch._run_directory(forged))
        self.assertEqual(launch._run_directory(forged + self.output), self.run_dir)
        slurm = "slipway: running program 'x' (3 tasks, 1 job steps) in job 7; run directory /r/x 1\n"
        self.assertEqual(launch._run_directory(slurm), "/r/x 1")


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1])
