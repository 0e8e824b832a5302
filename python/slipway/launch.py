"""sw.launch(program): writes the program as a slipway topology and runs it
with slipway, the launch type chosen by a flag as in Launchpad.

    python3 my_program.py                      # --launch=local: slipway run
    python3 my_program.py --launch=slurm       # inside an allocation: slipway launch
    python3 my_program.py --launch=sbatch      # slipway sbatch (submits a batch job)
    python3 my_program.py --launch=toml --toml my_program.toml   # only write it
    outcome = sw.launch(make_program(), launch_type="test", timeout=60)   # in a unit test

Emission, not a second launcher: the topology is the single source of truth
and slipway does the launching. Before running, `slipway validate` checks
it; its errors are reported at the Python line that made the node.
local, slurm and sbatch replace this process with slipway (launch() does not
return; the exit status is slipway's); test returns an Outcome. Python nodes
are shipped with cloudpickle beside the topology (slipway.shipping), except
for toml, whose tasks rebuild the program from its file.

Called in a task of the program (slipway.program_node imports the module,
or calls the function that made the program, which may be Launchpad's
`main()` that also launches it), launch() runs that task's node and exits:
a program never launches itself again from its own tasks.

The topology goes to --toml PATH, else: NAME.toml here (toml),
.slipway/NAME.toml here (slurm, sbatch: other hosts read it, so the current
directory must be on a shared file system, as every node's workdir is),
a temporary directory (local, test). Flags this parser does not know are
left to the program (parse_known_args).
"""

import argparse
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
from typing import Optional, Sequence, Union, cast

from . import program as _program
from .outcome import Outcome
from . import shipping
from . import topology_writer

__all__ = ["launch", "Outcome", "TopologyError", "find_slipway"]

LAUNCH_TYPES = ("local", "slurm", "sbatch", "toml", "test")
_SUBCOMMANDS = {"local": "run", "slurm": "launch", "sbatch": "sbatch"}
# Launchpad's launch types, for programs ported by changing their imports:
# slipway runs every node as a process of its own.
_LAUNCHPAD_TYPES = {"local_mp": "local", "local_mt": "local", "test_mp": "test", "test_mt": "test"}


class TopologyError(_program.ProgramError):
    """slipway validate refused the topology; `lines` are its messages at the
    Python lines that made the nodes."""

    def __init__(self, lines: list[str]) -> None:
        super().__init__("\n".join(lines))
        self.lines = lines


def find_slipway(explicit: Optional[str] = None) -> str:
    """The slipway binary: explicit, $SLIPWAY, PATH, or a build tree next to
    this package (build/bin/slipway)."""
    here = os.path.dirname(os.path.abspath(__file__))
    candidates = [explicit, os.environ.get("SLIPWAY"), shutil.which("slipway"),
                  os.path.join(here, "..", "..", "build", "bin", "slipway")]
    for candidate in candidates:
        if candidate and os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return os.path.abspath(candidate)
    raise FileNotFoundError("the slipway command is not found: put it on PATH, set SLIPWAY to its "
                            "path, or pass --slipway PATH")


def _parser(prog: str) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=prog, add_help=True,
        description="Launch this slipway program (its topology is written from the Python file).")
    parser.add_argument("--launch", choices=LAUNCH_TYPES, default=None,
                        help="local: slipway run on this machine (default); slurm: slipway launch "
                             "inside a Slurm allocation; sbatch: slipway sbatch; toml: only write the "
                             "topology; test: run it with a time limit and report the outcome")
    parser.add_argument("--toml", metavar="PATH", help="where to write the topology (default: "
                        "NAME.toml here for --launch=toml, .slipway/NAME.toml here for slurm and "
                        "sbatch, which other hosts read, a temporary directory otherwise)")
    parser.add_argument("--slipway", metavar="PATH", help="the slipway binary (default: $SLIPWAY, PATH)")
    parser.add_argument("--run-root", metavar="DIR", help="slipway's --run-root (local, slurm, test)")
    parser.add_argument("--grace", metavar="S", help="slipway's --grace (local, slurm, sbatch)")
    parser.add_argument("--timeout", metavar="S", type=float, default=None,
                        help="test: seconds before the program is stopped (default 120)")
    parser.add_argument("--dry-run", action="store_true", help="sbatch: print the batch script only")
    parser.add_argument("--slipway-arg", metavar="ARG", action="append", default=[],
                        help="one more argument for slipway's subcommand (repeatable)")
    return parser


def _options(argv: Sequence[str]) -> argparse.Namespace:
    parser = _parser(os.path.basename(argv[0]) if argv else "program")
    options, _unknown = parser.parse_known_args(argv[1:])   # the rest is the program's own
    return options


def _topology_path(program: _program.Program, options: argparse.Namespace, launch_type: str) -> str:
    if options.toml:
        given: str = os.path.abspath(options.toml)
        return given
    if launch_type == "toml":
        return os.path.abspath(program.name + ".toml")
    if launch_type in ("slurm", "sbatch"):   # read on other hosts: not in this host's /tmp
        os.makedirs(".slipway", exist_ok=True)
        return os.path.abspath(os.path.join(".slipway", program.name + ".toml"))
    return os.path.join(tempfile.mkdtemp(prefix="slipway-%s-" % program.name), program.name + ".toml")


def _validate(slipway: str, topology: topology_writer.Topology, path: str) -> None:
    done = subprocess.run([slipway, "validate", path], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True)
    if done.returncode == 2:
        raise TopologyError(topology_writer.map_errors(topology, path, done.stdout))
    if done.returncode != 0:
        raise RuntimeError("`%s validate %s` failed (status %d): %s"
                           % (slipway, path, done.returncode, done.stdout.strip()))


def launch(program: _program.Program, launch_type: Optional[str] = None, timeout: Optional[float] = None,
           argv: Optional[Sequence[str]] = None) -> Union[Outcome, str]:
    """Launches program as --launch says (launch_type overrides the flag).
    A mistake in the program is printed as `file.py:LINE: message` and the
    process exits 2, except for launch_type="test" given here, which raises
    it (ProgramError, TopologyError) for the test to see and returns the
    Outcome. --launch=test given on the command line prints the outcome
    (and the failing task's traceback) and, when the program failed or ran
    past its time, exits with slipway's (non-zero) status; else it returns
    the Outcome."""
    from . import program_node
    if program_node.serving():
        # A task of this program (re-running the module or its main()): run
        # this task's node, never launch the program again from inside it.
        program_node.serve(program)
    argv = sys.argv if argv is None else argv
    options = _options(argv)
    from_code = launch_type is not None
    launch_type = launch_type or options.launch or "local"
    launch_type = _LAUNCHPAD_TYPES.get(launch_type, launch_type)
    if launch_type == "test" and from_code:
        return _launch(program, launch_type, timeout, options)
    if launch_type == "test":   # --launch=test on a command line: say how it ended
        try:
            outcome = cast(Outcome, _launch(program, launch_type, timeout, options))
        except _program.ProgramError as exc:
            print(str(exc), file=sys.stderr)
            raise SystemExit(2)
        print("slipway: --launch=test: %r%s" % (outcome, "" if outcome.success else
              "\n" + (outcome.traceback or outcome.output[-2000:])), file=sys.stderr)
        if not outcome.success:
            raise SystemExit(outcome.exit_status or 1)
        return outcome
    try:
        return _launch(program, launch_type, timeout, options)
    except _program.ProgramError as exc:
        print(str(exc), file=sys.stderr)
        raise SystemExit(2)


def _launch(program: _program.Program, launch_type: str, timeout: Optional[float],
            options: argparse.Namespace) -> Union[Outcome, str]:
    if launch_type not in LAUNCH_TYPES:
        raise ValueError("launch_type %r: choose one of %s" % (launch_type, ", ".join(LAUNCH_TYPES)))
    if not isinstance(program, _program.Program):
        raise TypeError("sw.launch(program): give the sw.Program that make_program() returns, not %r"
                        % (program,))
    if program.factory.startswith("<") or program.factory_qualname != program.factory:
        site = program.site
        raise _program.ProgramError(
            "%s:%d: sw.Program(%r) is made %s: build the program in a function at the top level "
            "of the module (def make_program(): ... return p) and call sw.launch(make_program()), so "
            "that every task can rebuild it" % (
                site[0], site[1], program.name,
                "outside a function" if program.factory.startswith("<")
                else "in %s(), which is not a function at the top level of its module"
                % program.factory_qualname))
    slipway: Optional[str]
    if launch_type == "toml":
        slipway = None
        try:
            slipway = find_slipway(options.slipway)
        except FileNotFoundError:
            pass
    else:
        slipway = find_slipway(options.slipway)
    path = _topology_path(program, options, launch_type)
    shipped = None
    if launch_type != "toml" and shipping.available():
        shipped = shipping.ship(program, shipping.directory_for(path))
    topology = topology_writer.write(program, slipway_binary=slipway, shipped=shipped)
    with open(path, "w") as f:
        f.write(topology.text())
    if slipway is not None:
        _validate(slipway, topology, path)
    if launch_type == "toml":
        print("slipway: wrote program %r to %s" % (program.name, path), file=sys.stderr)
        return path
    assert slipway is not None   # only toml goes on without it
    if launch_type == "test":
        return _run_test(slipway, path, options, timeout or options.timeout or 120.0)
    argv_out = [slipway, _SUBCOMMANDS[launch_type], path]
    if options.run_root and launch_type != "sbatch":
        argv_out += ["--run-root", options.run_root]
    if options.grace:
        argv_out += ["--grace", options.grace]
    if options.dry_run and launch_type == "sbatch":
        argv_out.append("--dry-run")
    argv_out += options.slipway_arg
    sys.stdout.flush()
    sys.stderr.flush()
    os.execv(slipway, argv_out)


def _run_test(slipway: str, path: str, options: argparse.Namespace, timeout: float) -> Outcome:
    run_root = options.run_root or tempfile.mkdtemp(prefix="slipway-test-runs-")
    argv = [slipway, "run", path, "--run-root", run_root] + options.slipway_arg
    process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    timed_out = False
    try:
        output, _ = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        timed_out = True
        process.send_signal(signal.SIGTERM)   # slipway stops every task
        try:
            output, _ = process.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            process.kill()
            output, _ = process.communicate()
    return Outcome(process.returncode, output, timed_out, _run_directory(output), path)


def _run_directory(output: str) -> Optional[str]:

    """The run directory slipway run named in its first line (a task's lines
    are prefixed NODE.REPLICA: and cannot be taken for it), or None; how
    the run ended is that directory's outcome.json."""
    m = re.search(r"^slipway: (?:running|resuming) program .*; run directory (/.*\S)$", output, re.M)
    return m.group(1) if m else None
