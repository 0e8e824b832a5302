"""Ships a program's Python nodes to its tasks as Launchpad does, with
cloudpickle (Debian's python3-cloudpickle): closures, lambdas, functions
and classes made inside functions, and the values they captured at launch
arrive in the task as they were when sw.launch ran.

    shipped = ship(program, directory)      # at launch: {label: (file, sha256)}
    payload = load(file, sha256, module)    # in the task: {"label", "site", "members"}

Each node's payload is written next to the topology, and its SHA-256 goes
into the node's command (the topology the user launched): a task unpickles
a payload only after checking that digest, so it runs only what this launch
wrote, never a file someone changed since. Reads are bounded (MAX_BYTES), of
a regular file, not through a symbolic link.

Functions and classes of the program's own file are shipped by name and
looked up in the task, which imports that file as slipway.program_node
does: instances of the program's classes then pickle the same way in every
task (courier RPC). Everything else goes as cloudpickle sends it: by value
when made inside a function or in a script's __main__, by reference to its
module otherwise (that module must import in the task, as in Launchpad).
Handles go as the little the task needs to make their clients
(slipway.program.Handle.__reduce__).
"""

import hashlib
import hmac
import io
import os
import pickle
import stat
import sys
import types
from typing import Any, Iterable, Optional

from . import program as _program

__all__ = ["available", "ship", "load", "directory_for", "ShippingError", "MAX_BYTES"]

MAX_BYTES = 256 * 1024 * 1024   # one node's payload
# In a task: the program's module, for names shipped by reference.
_program_module: Optional[types.ModuleType] = None


class ShippingError(Exception):
    """A node's payload cannot be read in this task; the message says why."""


def available() -> bool:
    """Whether cloudpickle is installed (else tasks rebuild the program from
    its file, slipway.program_node --program-factory)."""
    try:
        import cloudpickle  # noqa: F401
    except ImportError:
        return False
    return True


def directory_for(topology_path: str) -> str:
    """Where the payloads of the topology at topology_path go: NAME.nodes/ beside it."""
    return os.path.splitext(topology_path)[0] + ".nodes"


def _program_object(qualname: str) -> Any:
    """In a task: the program module's function or class `qualname`."""
    obj: Any = _program_module
    if obj is None:
        raise ShippingError("a payload names %s of the program's file, which this task did not "
                            "import" % qualname)
    for part in qualname.split("."):
        obj = getattr(obj, part)
    return obj


def _program_module_names(program: _program.Program) -> set[str]:
    names = set()
    for name, module in list(sys.modules.items()):
        path: Optional[str] = getattr(module, "__file__", None)
        if path and os.path.abspath(path) == program.module_path:
            names.add(name)
    return names


def _pickler_class() -> type:
    import cloudpickle

    class _NodePickler(cloudpickle.CloudPickler):  # type: ignore[misc]  # cloudpickle is untyped
        """cloudpickle, but the program file's own functions and classes by name."""

        program_modules: frozenset[str] = frozenset()

        def reducer_override(self, obj: object) -> Any:
            if isinstance(obj, (type, types.FunctionType)) \
                    and getattr(obj, "__module__", None) in self.program_modules:
                qualname = getattr(obj, "__qualname__", "")
                if "<" not in qualname and _lookup(sys.modules[obj.__module__], qualname) is obj:
                    return (_program_object, (qualname,))
            return super().reducer_override(obj)

    return _NodePickler


def _lookup(module: types.ModuleType, qualname: str) -> Any:
    obj: Any = module
    for part in qualname.split("."):
        obj = getattr(obj, part, None)
    return obj


def _dumps(payload: object, program_modules: Iterable[str]) -> bytes:
    pickler_class = _pickler_class()
    out = io.BytesIO()
    pickler = pickler_class(out, protocol=pickle.HIGHEST_PROTOCOL)
    pickler.program_modules = frozenset(program_modules)
    pickler.dump(payload)
    return out.getvalue()


def ship(program: _program.Program, directory: str) -> dict[str, tuple[str, str]]:
    """Writes the payload of each PyNode and CourierNode of program into
    directory (made private if new) and returns {label: (path, sha256)}.
    Raises ProgramError at the node's Python line when it cannot be shipped."""
    os.makedirs(directory, mode=0o700, exist_ok=True)
    names = _program_module_names(program)
    shipped = {}
    for spec in program.specs.values():
        if not spec.members[0].ships:
            continue
        site = spec.site
        try:
            data = _dumps({"label": spec.label, "site": site, "members": spec.members}, names)
        except Exception as exc:
            raise _program.ProgramError(
                "%s:%d: node %r cannot be shipped to its tasks (cloudpickle: %s: %s): its function "
                "or class and their arguments must pickle; make what does not (open files, locks, "
                "sockets, clients) inside the node's function instead"
                % (site[0], site[1], spec.label, type(exc).__name__, exc)) from None
        if len(data) > MAX_BYTES:
            raise _program.ProgramError(
                "%s:%d: node %r pickles to %d bytes, more than the %d a node may ship: pass large "
                "data through a replay node or a file instead of the node's arguments"
                % (site[0], site[1], spec.label, len(data), MAX_BYTES))
        digest = hashlib.sha256(data).hexdigest()
        path = os.path.join(directory, "%s-%s.pickle" % (spec.label, digest[:16]))
        _write_new(path, data)
        shipped[spec.label] = (path, digest)
    return shipped


def _write_new(path: str, data: bytes) -> None:
    """Writes path through a new temporary file (never through a link) and renames it."""
    temporary = "%s.%d.tmp" % (path, os.getpid())
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(temporary, path)
    except BaseException:
        if os.path.lexists(temporary):
            os.unlink(temporary)
        raise


def _read_bounded(path: str) -> bytes:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as exc:
        raise ShippingError("cannot open the node's payload %s (%s): launch the program again "
                            "(sw.launch writes it beside the topology)" % (path, exc.strerror)) from None
    with os.fdopen(fd, "rb") as f:
        info = os.fstat(f.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise ShippingError("the node's payload %s is not a regular file: launch the program "
                                "again" % path)
        if info.st_size > MAX_BYTES:
            raise ShippingError("the node's payload %s holds %d bytes, more than %d: launch the "
                                "program again" % (path, info.st_size, MAX_BYTES))
        return f.read(MAX_BYTES + 1)


def load(path: str, sha256: str, module: Optional[types.ModuleType]) -> Any:

    """The payload at path, once its SHA-256 is sha256; module: the program's
    module, imported in this task (names shipped by reference)."""
    global _program_module
    data = _read_bounded(path)
    if len(data) > MAX_BYTES or not hmac.compare_digest(hashlib.sha256(data).hexdigest(), sha256):
        raise ShippingError("the node's payload %s is not the one this program was launched with "
                            "(its SHA-256 differs from the node's command): it was changed since "
                            "launch; launch the program again" % path)
    _program_module = module
    return pickle.loads(data)
