"""Nodes Launchpad ships with cloudpickle (closures.sh, issue 27 item 6): a
closure over main()'s local variables, a lambda, per-replica lambdas, and a
CourierNode of a class made inside main(); the values they capture (a flag
of the launch's command line, a stamp made once at launch) must reach every
task as they were at launch."""

import argparse
import sys
import uuid

import slipway as sw


def main(argv):
  parser = argparse.ArgumentParser()
  parser.add_argument('--base', type=int, default=1)
  flags, _ = parser.parse_known_args(argv[1:])
  stamp = uuid.uuid4().hex   # made once, here: a task that made its own would differ
  print(f'launch: stamp {stamp}', flush=True)
  base = flags.base

  class Adder:
    def add(self, x):
      return base + x

  p = sw.Program('closures')
  adder = p.add_node(sw.CourierNode(Adder), label='adder')

  def closure(adder):
    print(f'closure: stamp {stamp} base {base} add(2) {adder.add(2)}', flush=True)

  p.add_node(sw.PyNode(closure, adder), label='closure')
  p.add_node(sw.PyNode(lambda: print(f'lambda: stamp {stamp} squares {[i * i for i in range(base)]}',
                                     flush=True)), label='lambda')
  with p.group('worker'):
    for i in range(2):
      p.add_node(sw.PyNode(lambda i=i: print(f'worker: {i} of stamp {stamp}', flush=True)))
  sw.launch(p)


if __name__ == '__main__':
  main(sys.argv)
