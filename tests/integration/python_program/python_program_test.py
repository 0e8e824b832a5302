"""Runs the Python program API for real under slipway (integration:
python_program:*): working_program.py must finish through sw.stop() (exit
0); failing_program.py, under --launch=test, must stop with the worker's
traceback and the Python line that defined it; colocated_failing_program.py
must name the worker (not its colocated unit) and carry its traceback, from
the run's outcome.json; bad_topology_program.py
must be refused at its Python line. Needs SLIPWAY and
SLIPWAY_COURIER_LIBRARY; argv[1] is the check to run."""

import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "python"))
sys.path.insert(0, HERE)

import slipway as sw  # noqa: E402


def fail(message):
    print("FAIL: " + message)
    sys.exit(1)


def line_of(path, marker):
    with open(path) as f:
        for number, line in enumerate(f, 1):
            if marker in line:
                return number
    fail("no %s in %s" % (marker, path))


def check_working(runs):
    env = dict(os.environ, PYTHONPATH=os.path.join(HERE, "..", "..", "..", "python"))
    done = subprocess.run([sys.executable, os.path.join(HERE, "working_program.py"), "--run-root", runs],
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env,
                          timeout=240)
    print(done.stdout)
    if done.returncode != 0:
        fail("working_program.py exited with status %d" % done.returncode)
    for expected in ("actor.0: actor 0: ok", "actor.1: actor 1: ok",
                     "learner.0: learner: producers ['producer-0', 'producer-1'] echo ['http']",
                     "learner.0: learner: ok after 4 get_params calls",
                     "learner.0: learner: judges ['judge-0', 'judge-1'",   # 2 or 3 of them run
                     "stop requested by learner.0"):
        if expected not in done.stdout:
            fail("the output lacks %r" % expected)
    if "actor.2:" in done.stdout:
        fail("a third actor ran: the tasks did not rebuild the program with actors=2")


def launch_failing(module, runs):
    """Runs module's program under --launch=test; it must fail (exit 1)."""
    name = os.path.basename(module.__file__)
    outcome = sw.launch(module.make_program(), launch_type="test", timeout=120,
                        argv=[name, "--run-root", runs])
    print(outcome.output)
    print(repr(outcome))
    if outcome.success or outcome.timed_out or outcome.exit_status != 1:
        fail("%s did not fail as expected: %r" % (name, outcome))
    return outcome


def check_failing(runs):
    import failing_program
    outcome = launch_failing(failing_program, runs)
    if outcome.failed_task != "worker.0":
        fail("failed_task is %r, not worker.0" % outcome.failed_task)
    if "RuntimeError: worker gave up on purpose" not in outcome.traceback:
        fail("the outcome's traceback lacks the worker's exception:\n" + outcome.traceback)
    path = os.path.join(HERE, "failing_program.py")
    defined = "slipway: node 'worker' (defined at %s:%d) failed" % (path, line_of(path, "WORKER-LINE"))
    if defined not in outcome.output:
        fail("the output lacks %r" % defined)
    if 'in worker\n' not in outcome.traceback + "\n":
        fail("the traceback does not show the worker function")
    # --launch=test on the command line: the outcome and traceback printed, status non-zero.
    env = dict(os.environ, PYTHONPATH=os.path.join(HERE, "..", "..", "..", "python"))
    done = subprocess.run([sys.executable, path, "--launch=test", "--run-root", runs],
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env,
                          timeout=180)
    if done.returncode == 0 or "failed_task='worker.0'" not in done.stdout \
            or "RuntimeError: worker gave up on purpose" not in done.stdout:
        print(done.stdout)
        fail("--launch=test on the command line: status %d, outcome not shown" % done.returncode)


def check_colocated_failing(runs):
    import colocated_failing_program
    outcome = launch_failing(colocated_failing_program, runs)
    if outcome.failed_unit != "waiter.0+worker.0":
        fail("failed_unit is %r, not waiter.0+worker.0" % outcome.failed_unit)
    if outcome.failed_task != "worker.0":
        fail("failed_task is %r, not worker.0" % outcome.failed_task)
    if outcome.result != "failed" or outcome.record["exit"] != 1:
        fail("outcome.json says %r" % outcome.record)
    if "RuntimeError: colocated worker gave up on purpose" not in outcome.traceback:
        fail("the outcome's traceback lacks the worker's exception:\n" + outcome.traceback)
    if outcome.traceback_file != os.path.join(outcome.run_dir, "logs", "worker.0.traceback"):
        fail("the traceback file is %r" % outcome.traceback_file)


def check_bad_topology(runs):
    import bad_topology_program
    path = os.path.join(HERE, "bad_topology_program.py")
    try:
        sw.launch(bad_topology_program.make_program(), launch_type="test",
                  argv=["bad_topology_program.py", "--run-root", runs])
    except sw.TopologyError as exc:
        print(exc)
        where = "%s:%d: node 'greedy': " % (path, line_of(path, "BAD-LINE"))
        if not any(line.startswith(where) and "gpus" in line for line in exc.lines):
            fail("no error about gpus at %s" % where)
        return
    fail("the bad topology was launched")
    # The command-line form prints the same line and exits 2.


def check_bad_topology_cli(runs):
    env = dict(os.environ, PYTHONPATH=os.path.join(HERE, "..", "..", "..", "python"))
    path = os.path.join(HERE, "bad_topology_program.py")
    done = subprocess.run([sys.executable, path, "--launch=local", "--run-root", runs],
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env,
                          timeout=60)
    print(done.stdout)
    if done.returncode != 2 or "%s:%d: node 'greedy'" % (path, line_of(path, "BAD-LINE")) not in done.stdout:
        fail("expected exit 2 and the error at the Python line (status %d)" % done.returncode)


def main():
    check = sys.argv[1]
    with tempfile.TemporaryDirectory() as runs:
        {"working": check_working, "failing": check_failing, "colocated_failing": check_colocated_failing,
         "bad_topology": lambda r: (check_bad_topology(r), check_bad_topology_cli(r))}[check](runs)
    print("python_program %s: ok" % check)


if __name__ == "__main__":
    main()
