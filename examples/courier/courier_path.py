"""Makes `from slipway import courier` work from a source tree: the package
lives in python/ at the top of the tree (installed trees have it on the
path already)."""
import os
import sys

_here = os.path.dirname(os.path.abspath(__file__))
_tree_python = os.path.join(_here, "..", "..", "python")
if os.path.isdir(os.path.join(_tree_python, "slipway")) and _tree_python not in sys.path:
    sys.path.insert(0, _tree_python)
