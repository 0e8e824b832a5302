"""A program whose node raises (tests/integration/launchpad_examples,
node_raises.sh): the worker calls the server once, then raises. The program
must stop, server included, and its output show the worker's traceback and
the line below that made the worker node (the tests find it by its comment)."""

import slipway as sw


class Server:
  def ping(self, x):
    return x + 1


def worker(server):
  print(f'worker: server answered {server.ping(41)}', flush=True)
  raise ValueError('worker gives up on purpose')


def make_program():
  program = sw.Program('node_raises')
  server = program.add_node(sw.CourierNode(Server), label='server')
  program.add_node(sw.PyNode(worker, server=server), label='worker')  # the failing node
  return program


if __name__ == '__main__':
  sw.launch(make_program())
