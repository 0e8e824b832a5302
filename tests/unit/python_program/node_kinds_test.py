"""unit:python_program:node_kinds: no module of the Python package asks which
kind a node is. What differs between PyNode, CourierNode, ReplayNode and
ExecNode (the topology keys, shipping, the client a handle becomes, what a
task runs) lives in methods of the kinds (python/slipway/nodes.py), so a new
kind touches that file only. Fails on an isinstance()/issubclass() naming a
kind, anywhere in python/slipway, with its file and line."""

import ast
import os
import sys
import tempfile
import unittest

SOURCE = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..", "..")
PACKAGE = os.path.join(SOURCE, "python", "slipway")
KINDS = {"PyNode", "CourierNode", "ReplayNode", "ExecNode", "_PythonNode"}
MAX_BYTES = 4 * 1024 * 1024


def _names(node):
    """The names an isinstance()'s class argument mentions (a, m.a, (a, m.b))."""
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name):
            yield sub.id
        elif isinstance(sub, ast.Attribute):
            yield sub.attr


def dispatch_sites(package):
    """[(file, line, text)] of each isinstance/issubclass naming a node kind."""
    sites = []
    for name in sorted(os.listdir(package)):
        if not name.endswith(".py"):
            continue
        path = os.path.join(package, name)
        with open(path, "rb") as f:
            source = f.read(MAX_BYTES + 1)
        if len(source) > MAX_BYTES:
            raise AssertionError("%s is larger than %d bytes" % (path, MAX_BYTES))
        for node in ast.walk(ast.parse(source, path)):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                    and node.func.id in ("isinstance", "issubclass") and len(node.args) == 2
                    and KINDS & set(_names(node.args[1]))):
                sites.append((path, node.lineno, ast.unparse(node)))
    return sorted(sites)


class NodeKindsTest(unittest.TestCase):
    def test_no_dispatch_on_node_kinds(self):
        sites = dispatch_sites(PACKAGE)
        self.assertEqual(sites, [], "dispatch on a node's kind outside its class; give the kind a "
                         "method in python/slipway/nodes.py instead:\n" +
                         "\n".join("%s:%d: %s" % site for site in sites))

    def test_the_check_finds_a_site(self):
        # The check itself: a module that dispatches on a kind is found.
        with tempfile.TemporaryDirectory() as directory:
            with open(os.path.join(directory, "m.py"), "w") as f:
                f.write("def f(n):\n    return isinstance(n, (_nodes.ExecNode, int))\n")
            self.assertEqual([(line, text) for _, line, text in dispatch_sites(directory)],
                             [(2, "isinstance(n, (_nodes.ExecNode, int))")])


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1])
