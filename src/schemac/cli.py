"""The ``schemac`` command line: argument parsing and dispatch, nothing else.

Each subcommand is a :class:`~schemac.cli_command.Subcommand` defined in its
own ``cli_*`` module, its options beside its handler; the handler calls
library code and returns an exit code.  Adding a subcommand means defining
one and listing it in :data:`SUBCOMMANDS`.

Exit codes: 0 success, 1 invalid input (every diagnostic printed to stderr as
``file:line:col: error: ...`` with the source line and a caret), 2 a usage
error (argparse's own convention), 130 an interrupt.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
from collections.abc import Callable, Sequence
from types import FrameType
from typing import Any

from schemac.cli_backend import BACKEND_INIT, COVERAGE
from schemac.cli_check import CHECK
from schemac.cli_command import Subcommand, add_subcommand
from schemac.cli_compile import COMPILE
from schemac.cli_dump_ir import DUMP_IR
from schemac.cli_explain import EXPLAIN
from schemac.cli_inputs import input_usage_error
from schemac.cli_pipeline import PASSES
from schemac.cli_release import release_usage_error
from schemac.diagnostics import SchemacError, count_text, printable, render_all

__all__ = ["SUBCOMMANDS", "build_parser", "main", "version_text"]

#: Every subcommand, in the order ``--help`` lists them.
SUBCOMMANDS: tuple[Subcommand, ...] = (
    CHECK,
    DUMP_IR,
    PASSES,
    COMPILE,
    EXPLAIN,
    COVERAGE,
    BACKEND_INIT,
)


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The whole command line; with ``only``, the options of that subcommand alone.

    Every subcommand is listed either way (``--help``, an unknown command's
    error); only the one a command line runs is ever parsed, and building the
    options of all seven was ~4 ms of every compile.
    """
    parser = argparse.ArgumentParser(
        prog="schemac",
        description="A schema compiler for native_functions.yaml and friends.",
    )
    parser.add_argument("--version", action="version", version=version_text())
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for command in SUBCOMMANDS:
        add_subcommand(subparsers, command, with_arguments=only in (None, command.name))
    return parser


def _subcommand_of(argv: Sequence[str]) -> str | None:
    """The subcommand ``argv`` runs, if its first word names one (the top level
    takes no option but ``--version`` and ``--help``, which end the parse)."""
    names = {command.name for command in SUBCOMMANDS}
    return argv[0] if argv and argv[0] in names else None


def version_text() -> str:
    """What ``schemac --version`` prints: ``schemac 0.1.0``."""
    from schemac.version import version

    return f"schemac {version()}"


def main(argv: Sequence[str] | None = None) -> int:
    words = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(_subcommand_of(words))
    try:
        args = parser.parse_args(words)
    except SystemExit as exit_:  # argparse: --help (0) or a usage error (2)
        return exit_.code if isinstance(exit_.code, int) else 2
    # The command line as given: the no-op check's key hashes it.
    args.argv = words
    try:
        if hasattr(args, "native_functions"):
            problem = input_usage_error(args) or release_usage_error(args)
            if problem is not None:
                args.parser.error(problem)
    except SystemExit as exit_:
        return exit_.code if isinstance(exit_.code, int) else 2
    previous_term = _terminate_as_interrupt()
    try:
        code: int = args.handler(args)
    except BrokenPipeError:  # output piped into `head`: not an error of ours
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - silences the flush at exit
        return 0
    except SchemacError as error:
        sys.stderr.write(render_all(error.diagnostics) + "\n")
        sys.stderr.write(count_text(error.diagnostics) + "\n")
        return 1
    except KeyboardInterrupt:  # Ctrl-C, or SIGTERM (below): clean-up ran on the way here
        sys.stderr.write("schemac: interrupted\n")
        return 130
    except MemoryError:
        sys.stderr.write("schemac: error: out of memory\n")
        return 1
    except RecursionError:
        sys.stderr.write("schemac: error: the input is nested too deeply\n")
        return 1
    except OSError as error:  # what no narrower handler explained
        sys.stderr.write(f"schemac: error: {printable(str(error))}\n")
        return 1
    finally:
        if previous_term is not None:
            signal.signal(signal.SIGTERM, previous_term)
    return code


def _interrupt(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt


def _terminate_as_interrupt() -> Callable[[int, FrameType | None], Any] | int | None:
    """SIGTERM raises KeyboardInterrupt, so staging directories are removed as for Ctrl-C."""
    try:
        return signal.signal(signal.SIGTERM, _interrupt)
    except ValueError:  # not the main thread (an embedding application's worker)
        return None
