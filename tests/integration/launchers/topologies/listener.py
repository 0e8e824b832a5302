"""A process that holds a listening port on 127.0.0.1 and ignores SIGTERM and
SIGHUP, as a server a task leaves behind would: prints "NAME listens on
PORT", then waits for ever (kill_whole_launcher.sh)."""
import signal
import socket
import sys
import time

signal.signal(signal.SIGTERM, signal.SIG_IGN)
signal.signal(signal.SIGHUP, signal.SIG_IGN)
listener = socket.socket()
listener.bind(("127.0.0.1", 0))
listener.listen()
# One write: another process of the task writes to the same pipe.
sys.stdout.write(f"{sys.argv[1]} listens on {listener.getsockname()[1]}\n")
sys.stdout.flush()
while True:
    time.sleep(1000)
