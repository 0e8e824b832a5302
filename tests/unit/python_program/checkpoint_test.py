"""Unit tests of the checkpoint notice and resume API (unit:python_program:checkpoint):
python/slipway/checkpoint.py (checkpoint_requested, on_checkpoint, the
watcher thread and SIGTERM) and python/slipway/resume.py (resume_count,
state_dir, save_state). No slipway runs: the tests write $SLIPWAY_NOTICE_FILE
themselves, as the task agent does (a temporary file renamed over it), and
drive child Python processes with it and with signals."""

import json
import os
import select
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
import unittest

SOURCE = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..", "..")
PYTHON_DIR = os.path.abspath(os.path.join(SOURCE, "python"))
sys.path.insert(0, PYTHON_DIR)

import slipway as sw  # noqa: E402
from slipway import checkpoint  # noqa: E402


def write_notice(path, value):
    """As the agent does: a whole new file renamed over the old one."""
    text = value if isinstance(value, (str, bytes)) else json.dumps(value)
    data = text.encode() if isinstance(text, str) else text
    with open(path + ".tmp", "wb") as f:
        f.write(data)
    os.replace(path + ".tmp", path)


def notice(seq, reason="time limit is near (SIGUSR1)", stop=True, deadline_ms=1764321234567):
    return {"seq": seq, "reason": reason, "deadline_unix_ms": deadline_ms, "stop": stop}


class Child:
    """A Python process running `body` (after `import slipway as sw`) with
    SLIPWAY_NOTICE_FILE set; its stdout read line by line."""

    def __init__(self, test, notice_file, body):
        env = dict(os.environ, SLIPWAY_NOTICE_FILE=notice_file, PYTHONPATH=PYTHON_DIR, PYTHONUNBUFFERED="1")
        program = "import os, sys, time\nimport slipway as sw\nfrom slipway import checkpoint\n" + textwrap.dedent(body)
        self.process = subprocess.Popen([sys.executable, "-c", program], env=env, stdout=subprocess.PIPE,
                                        stderr=subprocess.PIPE)
        test.addCleanup(self.close)
        self.buffer = b""
        self.lines = []

    def close(self):
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()
        self.process.stdout.close()
        self.process.stderr.close()

    def expect(self, line, timeout=10.0):
        """Waits for `line` on stdout; returns every line seen so far."""
        deadline = time.monotonic() + timeout
        while line not in self.lines:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError("no line %r from the child in %.0f s; it printed %r" % (line, timeout, self.lines))
            ready, _, _ = select.select([self.process.stdout], [], [], left)
            if ready:
                chunk = os.read(self.process.stdout.fileno(), 65536)
                if not chunk:
                    raise AssertionError("the child ended (status %s) without %r; it printed %r; stderr: %s"
                                         % (self.process.wait(), line, self.lines, self.process.stderr.read()))
                self.buffer += chunk
                *whole, self.buffer = self.buffer.split(b"\n")
                self.lines.extend(w.decode() for w in whole)
        return self.lines

    def finish(self, timeout=10.0):
        """(exit status, all stdout lines, stderr) once the child ended."""
        out, err = self.process.communicate(timeout=timeout)
        self.lines.extend((self.buffer + out).decode().splitlines())
        self.buffer = b""
        return self.process.returncode, self.lines, err.decode()


# The handler every child registers: one line per notice it is given.
HANDLER = """
def handler(n):
    print("notice seq=%d reason=%s stop=%s deadline=%s" % (n.seq, n.reason, n.stop,
          "none" if n.deadline is None else "%.3f" % n.deadline), flush=True)
"""
IDLE = """
print("ready", flush=True)
while True:
    time.sleep(0.05)
"""


class ReadTest(unittest.TestCase):
    def setUp(self):
        self.directory = tempfile.TemporaryDirectory()
        self.addCleanup(self.directory.cleanup)
        self.path = os.path.join(self.directory.name, "learner.0")
        self.saved = os.environ.get("SLIPWAY_NOTICE_FILE")
        os.environ["SLIPWAY_NOTICE_FILE"] = self.path
        self.addCleanup(self.restore)
        self.stderr = tempfile.TemporaryFile(mode="w+")
        self.real_stderr, sys.stderr = sys.stderr, self.stderr
        self.addCleanup(self.restore_stderr)

    def restore(self):
        if self.saved is None:
            os.environ.pop("SLIPWAY_NOTICE_FILE", None)
        else:
            os.environ["SLIPWAY_NOTICE_FILE"] = self.saved

    def restore_stderr(self):
        sys.stderr = self.real_stderr
        self.stderr.close()

    def said(self):
        self.stderr.seek(0)
        return self.stderr.read()

    def test_no_notice(self):
        del os.environ["SLIPWAY_NOTICE_FILE"]
        self.assertIsNone(sw.checkpoint_requested())
        os.environ["SLIPWAY_NOTICE_FILE"] = self.path
        self.assertIsNone(sw.checkpoint_requested())   # absent until the first notice

    def test_notices_as_the_agent_writes_them(self):
        write_notice(self.path, notice(1))
        self.assertEqual(sw.checkpoint_requested(),
                         sw.Notice(1, "time limit is near (SIGUSR1)", 1764321234.567, True))
        self.assertEqual(sw.checkpoint_requested().seq, 1)
        write_notice(self.path, notice(2, reason="slipway checkpoint", stop=False))
        self.assertEqual(sw.checkpoint_requested(), sw.Notice(2, "slipway checkpoint", 1764321234.567, False))
        os.unlink(self.path)
        self.assertIsNone(sw.checkpoint_requested())
        self.assertEqual(self.said(), "")

    def test_missing_fields_take_defaults(self):
        write_notice(self.path, {"seq": 3})
        self.assertEqual(sw.checkpoint_requested(), sw.Notice(3, "", None, False))
        write_notice(self.path, {"seq": 4, "reason": 7, "deadline_unix_ms": "soon", "stop": "yes"})
        self.assertEqual(sw.checkpoint_requested(), sw.Notice(4, "", None, False))
        write_notice(self.path, {"seq": 5, "reason": "x" * 3000})
        self.assertEqual(len(sw.checkpoint_requested().reason), checkpoint.MAX_REASON_CHARS)

    def test_bad_files_are_no_notice_and_said_once(self):
        bad = {
            "not JSON": b"{\"seq\": 1, \"rea",
            "not a JSON object": b"[1, 2]",
            "its 'seq' is not a positive integer": json.dumps({"seq": 0}).encode(),
            "larger than 4096 bytes": json.dumps({"seq": 1, "reason": "x" * 5000}).encode(),
            "not JSON (": b"\xff\xfe{}",
        }
        for problem, data in bad.items():
            with self.subTest(problem=problem):
                write_notice(self.path, data)
                self.assertIsNone(sw.checkpoint_requested())
                self.assertIsNone(sw.checkpoint_requested())
                self.assertEqual(self.said().count(problem), 1, self.said())
                self.stderr.seek(0)
                self.stderr.truncate()
        for seq in ("1", True, -2, 1.5, None):
            with self.subTest(seq=seq):
                write_notice(self.path, {"seq": seq, "reason": "r", "stop": True})
                self.assertIsNone(sw.checkpoint_requested())

    def test_a_link_a_directory_or_a_fifo_is_no_notice(self):
        target = os.path.join(self.directory.name, "elsewhere")
        write_notice(target, notice(1))
        os.symlink(target, self.path)
        self.assertIsNone(sw.checkpoint_requested())
        self.assertIn("symbolic link", self.said())
        os.unlink(self.path)
        os.mkdir(self.path)
        self.assertIsNone(sw.checkpoint_requested())
        self.assertIn("not a regular file", self.said())
        os.rmdir(self.path)
        os.mkfifo(self.path)
        started = time.monotonic()
        self.assertIsNone(sw.checkpoint_requested())   # not blocked waiting for a writer
        self.assertLess(time.monotonic() - started, 2.0)

    def test_resume_count_and_state_dir(self):
        saved = {name: os.environ.pop(name, None) for name in ("SLIPWAY_RESUME", "SLIPWAY_STATE_DIR")}
        try:
            self.assertEqual(sw.resume_count(), 0)
            self.assertIsNone(sw.state_dir())
            os.environ["SLIPWAY_RESUME"] = "3"
            os.environ["SLIPWAY_STATE_DIR"] = self.directory.name
            self.assertEqual(sw.resume_count(), 3)
            self.assertEqual(sw.state_dir(), self.directory.name)
            for text in ("", "-1", "x", "\u0663"):
                os.environ["SLIPWAY_RESUME"] = text
                self.assertEqual(sw.resume_count(), 0, text)
        finally:
            for name, value in saved.items():
                os.environ.pop(name, None)
                if value is not None:
                    os.environ[name] = value


    def test_save_state(self):
        saved = os.environ.pop("SLIPWAY_STATE_DIR", None)
        try:
            self.assertIsNone(sw.save_state("x.json", lambda f: f.write(b"never")))
            os.environ["SLIPWAY_STATE_DIR"] = self.directory.name
            path = sw.save_state("x.json", lambda f: f.write(b"first"))
            self.assertEqual(path, os.path.join(self.directory.name, "x.json"))
            self.assertEqual(sw.save_state("x.json", lambda f: f.write(b"second")), path)
            with open(path, "rb") as f:
                self.assertEqual(f.read(), b"second")

            def half_then_fail(f):
                f.write(b"half")
                raise OSError("disk full")
            with self.assertRaisesRegex(OSError, "disk full"):
                sw.save_state("x.json", half_then_fail)
            with open(path, "rb") as f:
                self.assertEqual(f.read(), b"second")   # the old file, whole
            self.assertEqual(sorted(os.listdir(self.directory.name)), ["x.json"])   # no temporary left
            self.assertEqual(os.stat(path).st_mode & 0o777, 0o600)
        finally:
            os.environ.pop("SLIPWAY_STATE_DIR", None)
            if saved is not None:
                os.environ["SLIPWAY_STATE_DIR"] = saved


class HandlerTest(unittest.TestCase):
    def setUp(self):
        self.directory = tempfile.TemporaryDirectory()
        self.addCleanup(self.directory.cleanup)
        self.path = os.path.join(self.directory.name, "learner.0")

    def child(self, body):
        return Child(self, self.path, body)

    def notices(self, lines):
        return [line for line in lines if line.startswith("notice ")]

    def test_once_per_notice_from_the_watcher(self):
        child = self.child(HANDLER + """
def broken(n):
    raise RuntimeError("this handler is broken")
sw.on_checkpoint(broken)
sw.on_checkpoint(handler)
""" + IDLE)
        child.expect("ready")
        write_notice(self.path, notice(1, reason="first", stop=False))
        child.expect("notice seq=1 reason=first stop=False deadline=1764321234.567")
        write_notice(self.path, notice(1, reason="first", stop=False))   # the same notice, a new file
        write_notice(self.path, "garbage")
        time.sleep(0.5)
        write_notice(self.path, notice(2, reason="second"))
        lines = child.expect("notice seq=2 reason=second stop=True deadline=1764321234.567")
        self.assertEqual(len(self.notices(lines)), 2, lines)
        child.process.send_signal(signal.SIGTERM)   # after the stop notice: no handler again
        status, lines, err = child.finish()
        self.assertEqual(status, 0, err)
        self.assertEqual(len(self.notices(lines)), 2, lines)
        self.assertEqual(err.count("this handler is broken"), 2, err)   # reported, the others ran

    def test_a_seq_counted_again_from_one_is_a_new_notice(self):
        child = self.child(HANDLER + "sw.on_checkpoint(handler)\n" + IDLE)
        child.expect("ready")
        write_notice(self.path, notice(3, reason="last job", stop=False))
        child.expect("notice seq=3 reason=last job stop=False deadline=1764321234.567")
        write_notice(self.path, notice(1, reason="this job", stop=False))   # a new job's launcher
        child.expect("notice seq=1 reason=this job stop=False deadline=1764321234.567")

    def test_a_notice_before_the_handler_is_given_to_it(self):
        write_notice(self.path, notice(4, reason="before"))
        child = self.child(HANDLER + "sw.on_checkpoint(handler)\n" + IDLE)
        child.expect("notice seq=4 reason=before stop=True deadline=1764321234.567")

    def test_sigterm_without_a_notice_runs_the_handlers_first(self):
        child = self.child(HANDLER + "sw.on_checkpoint(handler)\n" + IDLE)
        child.expect("ready")
        started = time.time()
        child.process.send_signal(signal.SIGTERM)
        status, lines, err = child.finish()
        self.assertEqual(status, 0, err)   # then slipway.lifecycle: no stop handler, exit 0
        (line,) = self.notices(lines)
        self.assertTrue(line.startswith("notice seq=0 reason=SIGTERM stop=True deadline="), line)
        deadline = float(line.rsplit("=", 1)[1])
        self.assertAlmostEqual(deadline, started + checkpoint.SIGTERM_DEADLINE_SECONDS, delta=5)

    def test_sigterm_gives_the_unseen_file_notice(self):
        child = self.child(HANDLER + "checkpoint.POLL_SECONDS = 3600\nsw.on_checkpoint(handler)\n" + IDLE)
        child.expect("ready")
        write_notice(self.path, notice(7, reason="preempted"))
        child.process.send_signal(signal.SIGTERM)
        status, lines, err = child.finish()
        self.assertEqual(status, 0, err)
        self.assertEqual(self.notices(lines), ["notice seq=7 reason=preempted stop=True deadline=1764321234.567"])

    def test_sigterm_after_a_checkpoint_without_stop_still_saves(self):
        child = self.child(HANDLER + "sw.on_checkpoint(handler)\n" + IDLE)
        child.expect("ready")
        write_notice(self.path, notice(1, reason="slipway checkpoint", stop=False))
        child.expect("notice seq=1 reason=slipway checkpoint stop=False deadline=1764321234.567")
        child.process.send_signal(signal.SIGTERM)
        status, lines, err = child.finish()
        self.assertEqual(status, 0, err)
        self.assertEqual(len(self.notices(lines)), 2, lines)
        self.assertTrue(self.notices(lines)[1].startswith("notice seq=0 reason=SIGTERM stop=True"), lines)

    def test_a_stop_notice_after_sigterm_is_not_given_again(self):
        child = self.child(HANDLER + """
sw.on_checkpoint(handler)
sw.register_stop_handler(lambda: print("stop handler", flush=True))
""" + IDLE)
        child.expect("ready")
        child.process.send_signal(signal.SIGTERM)
        child.expect("stop handler")   # with a stop handler the task goes on
        write_notice(self.path, notice(1, reason="the launcher's notice of that SIGTERM"))
        time.sleep(0.6)
        write_notice(self.path, notice(2, reason="a later checkpoint", stop=False))
        lines = child.expect("notice seq=2 reason=a later checkpoint stop=False deadline=1764321234.567")
        self.assertEqual([n.split(" reason=")[0] for n in self.notices(lines)], ["notice seq=0", "notice seq=2"])

    def test_sigterm_waits_for_the_watchers_handler(self):
        child = self.child("""
def slow(n):
    print("saving", flush=True)
    time.sleep(1.0)
    print("saved %d" % n.seq, flush=True)
sw.on_checkpoint(slow)
""" + IDLE)
        child.expect("ready")
        write_notice(self.path, notice(1))
        child.expect("saving")
        child.process.send_signal(signal.SIGTERM)
        time.sleep(0.2)
        child.process.send_signal(signal.SIGTERM)   # a second one (the launcher's at the deadline)
        status, lines, err = child.finish()
        self.assertEqual(status, 0, err)
        self.assertEqual(lines[-2:], ["saving", "saved 1"])

    def test_a_second_sigterm_during_the_handlers_waits_for_them(self):
        child = self.child("""
def slow(n):
    print("saving %d" % n.seq, flush=True)
    time.sleep(1.0)
    print("saved %d" % n.seq, flush=True)
sw.on_checkpoint(slow)
""" + IDLE)
        child.expect("ready")
        child.process.send_signal(signal.SIGTERM)
        child.expect("saving 0")
        child.process.send_signal(signal.SIGTERM)
        status, lines, err = child.finish()
        self.assertEqual(status, 0, err)
        self.assertEqual(lines[-2:], ["saving 0", "saved 0"])

    def test_the_previous_sigterm_handler_runs_after_the_handlers(self):
        child = self.child(HANDLER + """
import signal
signal.signal(signal.SIGTERM, lambda *_: (print("previous handler", flush=True), os._exit(5)))
sw.on_checkpoint(handler)
""" + IDLE)
        child.expect("ready")
        child.process.send_signal(signal.SIGTERM)
        status, lines, err = child.finish()
        self.assertEqual(status, 5, err)
        self.assertEqual(len(lines), 3, lines)
        self.assertTrue(lines[1].startswith("notice seq=0 reason=SIGTERM"), lines)
        self.assertEqual(lines[2], "previous handler")

    def test_outside_the_main_thread_the_watcher_still_works(self):
        child = self.child(HANDLER + """
import threading
for _ in range(2):
    t = threading.Thread(target=sw.on_checkpoint, args=(handler,))
    t.start()
    t.join()
""" + IDLE)
        child.expect("ready")
        write_notice(self.path, notice(1))
        child.expect("notice seq=1 reason=time limit is near (SIGUSR1) stop=True deadline=1764321234.567")
        child.process.send_signal(signal.SIGTERM)
        status, lines, err = child.finish()
        self.assertEqual(status, -signal.SIGTERM, err)   # no handler of ours: SIGTERM's default
        self.assertEqual(err.count("outside the main thread"), 1, err)   # said once

    def test_not_a_function_is_refused(self):
        with self.assertRaises(TypeError):
            sw.on_checkpoint("save")


if __name__ == "__main__":
    unittest.main(argv=[sys.argv[0]], verbosity=2)
