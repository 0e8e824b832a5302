"""The Python package's metadata (unit:python_program:package):
python/pyproject.toml names the package, the Python it needs and the
project's version, which CMakeLists.txt sets (argv[2]) and which
slipway.__version__ says too; the package it lists is the one in python/."""

import os
import sys
import tomllib
import unittest

SOURCE = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..", "..")
PROJECT_VERSION = sys.argv[2] if len(sys.argv) > 2 else None
sys.path.insert(0, os.path.join(SOURCE, "python"))

import slipway  # noqa: E402


class PackageTest(unittest.TestCase):
    def setUp(self):
        with open(os.path.join(SOURCE, "python", "pyproject.toml"), "rb") as f:
            self.pyproject = tomllib.load(f)
        self.project = self.pyproject["project"]

    def test_version_is_the_projects(self):
        self.assertIsNotNone(PROJECT_VERSION, "give CMake's PROJECT_VERSION as the second argument")
        self.assertEqual(self.project["version"], PROJECT_VERSION,
                         "python/pyproject.toml's version is not CMakeLists.txt's project version")
        self.assertEqual(slipway.__version__, PROJECT_VERSION,
                         "slipway.__version__ (python/slipway/__init__.py) is not the project version")

    def test_name_python_and_package(self):
        self.assertEqual(self.project["name"], "slipway")
        self.assertEqual(self.project["requires-python"], ">=3.11")
        self.assertGreaterEqual(sys.version_info[:2], (3, 11))
        self.assertEqual(self.project["dependencies"], [])   # standard library only
        self.assertEqual(self.pyproject["tool"]["setuptools"]["packages"], ["slipway"])
        self.assertTrue(os.path.isfile(os.path.join(SOURCE, "python", "slipway", "__init__.py")))
        self.assertEqual(self.pyproject["build-system"]["build-backend"], "setuptools.build_meta")


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1])
