"""Launchpad's canonical shape (self_launch.sh, issue 27 item 6): main()
makes the program and launches it, and the file calls main() under
`if __name__ == "__main__":`. Its one node raises. The program must fail
once, with the exception reported once, and never launch itself again from
its task."""

import slipway as sw


def boom():
  raise RuntimeError('boom on purpose')


def main():
  p = sw.Program("failing")
  p.add_node(sw.PyNode(boom), label="boom")  # the boom node
  sw.launch(p)


if __name__ == "__main__":
  main()
