"""A program that slipway validate refuses (gpus = -1): the test expects the
error at the Python line of that add_node."""

import slipway as sw


def noop():
    pass


def make_program():
    p = sw.Program("python-bad")
    p.add_node(sw.PyNode(noop), label="fine")
    p.add_node(sw.PyNode(noop), label="greedy", gpus=-1)  # BAD-LINE
    return p


if __name__ == "__main__":
    sw.launch(make_program())
