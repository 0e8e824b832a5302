"""A node that listens on its own port and talks to the node it handles:
it sends its name to the peer's address and expects the peer's name back
on its own port. Used by the handle_cycle scenario (ping <-> pong)."""
import os
import socket
import sys
import threading

me = os.environ["SLIPWAY_NODE"]
peer = sys.argv[1]
port = int(os.environ["SLIPWAY_PORT_ECHO"])
host, peer_port = os.environ[f"SLIPWAY_ADDR_{peer.upper()}_ECHO"].split(",")[0].rsplit(":", 1)

server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
server.bind(("127.0.0.1", port))
server.listen(1)
received = []

def accept():
    conn, _ = server.accept()
    with conn:
        received.append(conn.recv(100).decode())
        conn.sendall(b"ack")

t = threading.Thread(target=accept)
t.start()
# The peer binds after its agent released the port: retry briefly.
for _ in range(100):
    try:
        with socket.create_connection((host, int(peer_port)), timeout=5) as c:
            c.sendall(me.encode())
            assert c.recv(3) == b"ack"
        break
    except ConnectionRefusedError:
        import time
        time.sleep(0.05)
else:
    sys.exit(f"{me}: could not reach {peer} at {host}:{peer_port}")
t.join(timeout=30)
assert received == [peer], received
print(f"{me} heard from {received[0]}")
