"""A program whose worker raises while it shares its unit with a waiter
(colocate = "pair": one agent runs both): the test expects the outcome to
name the worker, not the unit, and to carry the worker's traceback."""

import slipway as sw


def worker():
    raise RuntimeError("colocated worker gave up on purpose")


def waiter():
    sw.wait_for_stop()   # ends when the agent stops it


def make_program():
    p = sw.Program("python-colocated-failing")
    p.add_node(sw.PyNode(waiter), label="waiter", colocate="pair")
    p.add_node(sw.PyNode(worker), label="worker", colocate="pair")
    return p


if __name__ == "__main__":
    sw.launch(make_program())
