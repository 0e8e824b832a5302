"""Makes `from slipway import replay` work from the source tree (python/ at
its top) for the scripts of this test."""
import os
import sys

_tree_python = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "python")
if _tree_python not in sys.path:
    sys.path.insert(0, _tree_python)
