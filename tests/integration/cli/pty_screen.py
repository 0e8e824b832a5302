#!/usr/bin/python3
"""Runs a command under a pseudo-terminal and checks what its screen shows.

Usage: pty_screen.py [--rows R] [--cols C] [--stderr FILE] STEP... -- COMMAND...

The command gets a new session whose controlling terminal is the pty
(TERM=xterm, R x C), as it would in a terminal window. What it writes is
read into a small xterm emulator (cursor addressing, erasing, scrolling,
the alternate screen; colours are ignored), so that a step can check the
screen as a person would see it, whatever way curses chose to draw it.

Steps, in order (each waits at most 30 s, or what timeout= set):
  expect=TEXT   wait until a line of the screen contains TEXT
  absent=TEXT   no line of the screen contains TEXT now
  row=N:TEXT    wait until line N of the screen (0: the top) starts with TEXT
  resize=RxC    make the terminal R rows by C columns (the command gets SIGWINCH)
  seen=TEXT     wait until TEXT was printed at some time (e.g. by a pager)
  key=TEXT      type TEXT (Python escapes: \\r, \\x1b, ...)
  sleep=SECONDS wait
  timeout=SECONDS  the steps after it wait at most that long
  signal=NAME   send signal NAME (TERM, INT, ...) to the command
  sh=COMMAND    run COMMAND with /bin/sh -c; it must succeed
  exit=N        wait until the command exits, with status N (128+S: signal S)
  restored      the terminal is as before: the same termios settings, the
                alternate screen left and the cursor visible
  stderr=TEXT   (after exit) the command's standard error contains TEXT
Exits 0 when every step passed; otherwise 1, printing the step, the screen
and the command's standard error.
"""
import codecs
import fcntl
import os
import select
import signal
import struct
import subprocess
import sys
import termios
import time

STEP_TIMEOUT = 30.0
MAX_TRANSCRIPT = 1 << 20  # characters of printed text kept for seen=


class Screen:
    """The part of xterm that ncurses uses with TERM=xterm."""

    def __init__(self, rows, cols):
        self.rows, self.cols = rows, cols
        self.main = self._blank()
        self.alternate = self._blank()
        self.grid = self.main
        self.in_alternate = False
        self.left_alternate = False
        self.cursor_visible = True
        self.r = self.c = 0
        self.saved = (0, 0)
        self.top, self.bottom = 0, rows - 1
        self.pending_wrap = False
        self.last = " "
        self.transcript = []
        self.decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self.state = "text"
        self.params = ""

    def _blank(self):
        return [[" "] * self.cols for _ in range(self.rows)]

    def resize(self, rows, cols):
        """As xterm does: lines cut or padded on the right, rows at the bottom."""
        def fit(grid):
            grid = [(line + [" "] * cols)[:cols] for line in grid[:rows]]
            return grid + [[" "] * cols for _ in range(rows - len(grid))]
        self.main, self.alternate = fit(self.main), fit(self.alternate)
        self.grid = self.alternate if self.in_alternate else self.main
        self.rows, self.cols = rows, cols
        self.top, self.bottom = 0, rows - 1
        self.r, self.c = min(self.r, rows - 1), min(self.c, cols - 1)

    def lines(self):
        return ["".join(row).rstrip() for row in self.grid]

    def shows(self, text):
        return any(text in line for line in self.lines())

    def printed(self):
        return "".join(self.transcript)

    # Output of the command.
    def feed(self, data):
        for ch in self.decoder.decode(data):
            self._char(ch)

    def _char(self, ch):
        if self.state == "esc":
            self._escape(ch)
        elif self.state == "csi":
            if "0" <= ch <= "9" or ch in ";?>=<!":
                self.params += ch
            else:
                self.state = "text"
                self._csi(ch, self.params)
        elif self.state == "osc":
            if ch == "\x07" or ch == "\x1b":
                self.state = "text"  # the ESC of ESC \ ends it; its backslash prints nothing visible
        elif self.state == "charset":
            self.state = "text"
        elif ch == "\x1b":
            self.state = "esc"
        elif ch == "\r":
            self.c, self.pending_wrap = 0, False
        elif ch == "\n":
            self._index()
            self.transcript.append("\n")
        elif ch == "\b":
            self.c, self.pending_wrap = max(0, self.c - 1), False
        elif ch == "\t":
            self.c = min(self.cols - 1, (self.c // 8 + 1) * 8)
        elif ch < " " or ch == "\x7f":
            pass
        else:
            self._put(ch)

    def _put(self, ch):
        if self.pending_wrap:
            self.c, self.pending_wrap = 0, False
            self._index()
        self.grid[self.r][self.c] = ch
        self.last = ch
        if len(self.transcript) < MAX_TRANSCRIPT:
            self.transcript.append(ch)
        if self.c == self.cols - 1:
            self.pending_wrap = True
        else:
            self.c += 1

    def _index(self):
        if self.r == self.bottom:
            self._scroll_up(1)
        elif self.r < self.rows - 1:
            self.r += 1

    def _scroll_up(self, n):
        for _ in range(n):
            del self.grid[self.top]
            self.grid.insert(self.bottom, [" "] * self.cols)

    def _scroll_down(self, n):
        for _ in range(n):
            del self.grid[self.bottom]
            self.grid.insert(self.top, [" "] * self.cols)

    def _escape(self, ch):
        self.state = "text"
        if ch == "[":
            self.state, self.params = "csi", ""
        elif ch == "]":
            self.state = "osc"
        elif ch in "()*+":
            self.state = "charset"
        elif ch == "7":
            self.saved = (self.r, self.c)
        elif ch == "8":
            self.r, self.c = self.saved
        elif ch == "M":
            if self.r == self.top:
                self._scroll_down(1)
            elif self.r > 0:
                self.r -= 1
        elif ch == "D":
            self._index()
        elif ch == "E":
            self.c = 0
            self._index()
        # ESC = and ESC > (keypad modes) and others: nothing to draw.

    def _switch(self, alternate):
        if alternate and not self.in_alternate:
            self.alternate = self._blank()
            self.grid, self.in_alternate = self.alternate, True
        elif not alternate and self.in_alternate:
            self.grid, self.in_alternate = self.main, False
            self.left_alternate = True

    def _csi(self, final, params):
        private = params.startswith("?")
        if params[:1] in "?>=<!":
            params = params[1:]
        values = [int(p) if p.isdigit() else 0 for p in params.split(";")] if params else []

        def arg(i, default):
            return values[i] if len(values) > i and values[i] else default

        self.pending_wrap = False
        rows, cols = self.rows, self.cols
        if private:
            if final in "hl":
                for mode in values:
                    if mode in (47, 1047, 1049):
                        self._switch(final == "h")
                    elif mode == 25:
                        self.cursor_visible = final == "h"
            return
        if final in "Hf":
            self.r, self.c = min(arg(0, 1), rows) - 1, min(arg(1, 1), cols) - 1
        elif final == "A":
            self.r = max(0, self.r - arg(0, 1))
        elif final == "B":
            self.r = min(rows - 1, self.r + arg(0, 1))
        elif final == "C":
            self.c = min(cols - 1, self.c + arg(0, 1))
        elif final == "D":
            self.c = max(0, self.c - arg(0, 1))
        elif final == "G":
            self.c = min(arg(0, 1), cols) - 1
        elif final == "d":
            self.r = min(arg(0, 1), rows) - 1
        elif final == "K":
            mode, line = arg(0, 0), self.grid[self.r]
            span = {0: range(self.c, cols), 1: range(0, self.c + 1)}.get(mode, range(cols))
            for i in span:
                line[i] = " "
        elif final == "J":
            mode = arg(0, 0)
            if mode == 0:
                self._csi("K", "")
                for r in range(self.r + 1, rows):
                    self.grid[r] = [" "] * cols
            elif mode == 1:
                self._csi("K", "1")
                for r in range(0, self.r):
                    self.grid[r] = [" "] * cols
            else:
                for r in range(rows):
                    self.grid[r] = [" "] * cols
        elif final == "X":
            for i in range(self.c, min(cols, self.c + arg(0, 1))):
                self.grid[self.r][i] = " "
        elif final == "@":
            line = self.grid[self.r]
            n = arg(0, 1)
            line[self.c:] = ([" "] * n + line[self.c:])[: cols - self.c]
        elif final == "P":
            line = self.grid[self.r]
            n = arg(0, 1)
            line[self.c:] = (line[self.c + n:] + [" "] * n)[: cols - self.c]
        elif final in "LM":
            if self.top <= self.r <= self.bottom:
                saved_top, self.top = self.top, self.r
                (self._scroll_down if final == "L" else self._scroll_up)(arg(0, 1))
                self.top = saved_top
        elif final == "S":
            self._scroll_up(arg(0, 1))
        elif final == "T":
            self._scroll_down(arg(0, 1))
        elif final == "r":
            self.top, self.bottom = arg(0, 1) - 1, min(arg(1, rows), rows) - 1
            self.r = self.c = 0
        elif final == "b":
            for _ in range(arg(0, 1)):
                self._put(self.last)
        # m (colours), t, n, c and the rest draw nothing.


class Session:
    def __init__(self, command, rows, cols, stderr_path):
        self.master, self.slave = os.openpty()
        fcntl.ioctl(self.slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
        self.initial = termios.tcgetattr(self.slave)
        self.screen = Screen(rows, cols)
        self.timeout = STEP_TIMEOUT
        self.stderr_path = stderr_path
        env = dict(os.environ, TERM="xterm")
        for name in ("LINES", "COLUMNS"):  # the pty's size rules
            env.pop(name, None)

        def controlling_terminal():
            fcntl.ioctl(0, termios.TIOCSCTTY, 0)

        with open(stderr_path, "wb") as err:
            self.proc = subprocess.Popen(command, stdin=self.slave, stdout=self.slave, stderr=err,
                                         env=env, start_new_session=True,
                                         preexec_fn=controlling_terminal, close_fds=True)

    def pump(self, seconds):
        """Reads what the command writes for up to `seconds`."""
        end = time.monotonic() + seconds
        while True:
            left = end - time.monotonic()
            ready, _, _ = select.select([self.master], [], [], max(0.0, left))
            if ready:
                try:
                    data = os.read(self.master, 65536)
                except OSError:
                    data = b""
                if data:
                    self.screen.feed(data)
                    continue
            if left <= 0:
                return

    def wait_until(self, predicate):
        end = time.monotonic() + self.timeout
        while time.monotonic() < end:
            self.pump(0.05)
            if predicate():
                return True
        return False

    def stderr_text(self):
        with open(self.stderr_path, errors="replace") as f:
            return f.read()


def fail(session, step, why):
    print(f"pty_screen: step '{step}' failed: {why}", file=sys.stderr)
    print("--- screen ---", file=sys.stderr)
    for line in session.screen.lines():
        print(line, file=sys.stderr)
    print("--- standard error ---", file=sys.stderr)
    print(session.stderr_text(), file=sys.stderr)
    if session.proc.poll() is None:
        session.proc.kill()
    sys.exit(1)


def run(steps, session):
    for step in steps:
        name, _, value = step.partition("=")
        if name == "expect":
            if not session.wait_until(lambda: session.screen.shows(value)):
                fail(session, step, f"not on the screen within {session.timeout:g} s")
        elif name == "absent":
            session.pump(0.2)
            if session.screen.shows(value):
                fail(session, step, "on the screen")
        elif name == "row":
            number, _, text = value.partition(":")
            lines = session.screen.lines
            if not session.wait_until(lambda: lines()[int(number)].startswith(text)):
                fail(session, step, f"not so within {session.timeout:g} s")
        elif name == "resize":
            rows, _, cols = value.partition("x")
            session.screen.resize(int(rows), int(cols))
            fcntl.ioctl(session.slave, termios.TIOCSWINSZ, struct.pack("HHHH", int(rows), int(cols), 0, 0))
        elif name == "seen":
            if not session.wait_until(lambda: value in session.screen.printed()):
                fail(session, step, f"never printed within {session.timeout:g} s")
        elif name == "key":
            os.write(session.master, value.encode().decode("unicode_escape").encode())
        elif name == "timeout":
            session.timeout = float(value)
        elif name == "sleep":
            session.pump(float(value))
        elif name == "sh":
            done = subprocess.run(["/bin/sh", "-c", value], check=False)
            if done.returncode != 0:
                fail(session, step, f"exit status {done.returncode}")
        elif name == "signal":
            session.proc.send_signal(getattr(signal, "SIG" + value))
        elif name == "exit":
            if not session.wait_until(lambda: session.proc.poll() is not None):
                fail(session, step, f"still running after {session.timeout:g} s")
            session.pump(0.1)
            code = session.proc.returncode
            code = 128 - code if code < 0 else code
            if code != int(value):
                fail(session, step, f"exit status {code}")
        elif name == "restored":
            now = termios.tcgetattr(session.slave)
            if now[:4] != session.initial[:4]:
                fail(session, step, f"termios flags {now[:4]} != {session.initial[:4]}")
            if session.screen.in_alternate or not session.screen.left_alternate:
                fail(session, step, "the alternate screen was not left")
            if not session.screen.cursor_visible:
                fail(session, step, "the cursor is still hidden")
        elif name == "stderr":
            if value not in session.stderr_text():
                fail(session, step, "not in standard error")
        elif name == "dump":
            print("\n".join(session.screen.lines()))
        else:
            fail(session, step, "unknown step")


def main(argv):
    rows, cols, stderr_path = 40, 120, None
    args = list(argv)
    while args and args[0].startswith("--") and args[0] != "--":
        option = args.pop(0)
        value = args.pop(0)
        if option == "--rows":
            rows = int(value)
        elif option == "--cols":
            cols = int(value)
        elif option == "--stderr":
            stderr_path = value
        else:
            sys.exit(f"pty_screen: unknown option {option}")
    if "--" not in args:
        sys.exit(__doc__)
    split = args.index("--")
    steps, command = args[:split], args[split + 1:]
    if not command:
        sys.exit(__doc__)
    stderr_path = stderr_path or os.devnull
    session = Session(command, rows, cols, stderr_path)
    try:
        run(steps, session)
    finally:
        if session.proc.poll() is None:
            session.proc.kill()
            session.proc.wait()


if __name__ == "__main__":
    main(sys.argv[1:])
