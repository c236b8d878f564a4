"""One subcommand of the ``schemac`` command line: its arguments and its handler, together.

Each ``cli_*`` module defines its subcommands as :class:`Subcommand` values
(the options it takes and the function that runs it, side by side);
:mod:`schemac.cli` lists them and :func:`add_subcommand` turns each into an
``argparse`` subparser.  A handler calls library code and returns the exit
code; ``args.parser`` is its own subparser, for usage errors.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import TYPE_CHECKING

import attrs

Handler = Callable[[argparse.Namespace], int]
Arguments = Callable[[argparse.ArgumentParser], None]

if TYPE_CHECKING:
    #: What ``add_subparsers`` returns (generic in typeshed only, hence the guard).
    Subparsers = argparse._SubParsersAction[argparse.ArgumentParser]


def no_arguments(parser: argparse.ArgumentParser) -> None:
    """The :attr:`Subcommand.arguments` of a subcommand that takes none."""


@attrs.frozen
class Subcommand:
    name: str
    #: The one line ``schemac --help`` lists.
    help: str
    #: The paragraph ``schemac NAME --help`` opens with.
    description: str
    arguments: Arguments
    handler: Handler


def add_subcommand(
    subparsers: Subparsers, command: Subcommand, *, with_arguments: bool = True
) -> argparse.ArgumentParser:
    """``command`` as a subparser; without its options unless ``with_arguments``
    (a command line that runs another subcommand never parses them)."""
    parser: argparse.ArgumentParser = subparsers.add_parser(
        command.name, help=command.help, description=command.description
    )
    if with_arguments:
        command.arguments(parser)
    parser.set_defaults(handler=command.handler, parser=parser)
    return parser
