"""A program whose worker raises: the test expects the program to stop, the
worker's traceback in the output, and the Python line that defined it."""

import slipway as sw


class Server:
    def ping(self):
        return "pong"


def worker(server):
    assert server.ping() == "pong"
    raise RuntimeError("worker gave up on purpose")


def waiter():
    sw.wait_for_stop()   # ends when the program stops


def make_program():
    p = sw.Program("python-failing")
    server = p.add_node(sw.CourierNode(Server), label="server")
    p.add_node(sw.PyNode(waiter), label="waiter")
    p.add_node(sw.PyNode(worker, server), label="worker")  # WORKER-LINE
    return p


if __name__ == "__main__":
    sw.launch(make_program())
