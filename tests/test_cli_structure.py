"""The command line's shape: each subcommand's options and handler in one module, cli.py a list.

Each subcommand is a ``Subcommand`` value whose ``arguments`` and ``handler``
are defined side by side in one ``schemac.cli_*`` module; ``schemac.cli``
only lists them, parses and dispatches (the CLI stays thin).
"""

from __future__ import annotations

import ast
import inspect

import schemac.cli
from schemac.cli import SUBCOMMANDS, build_parser


def test_every_subcommand_keeps_its_arguments_beside_its_handler() -> None:
    for command in SUBCOMMANDS:
        handler_module = inspect.getmodule(command.handler)
        assert handler_module is not None
        assert handler_module.__name__.startswith("schemac.cli_"), command.name
        arguments_module = inspect.getmodule(command.arguments)
        assert arguments_module is not None
        # Its own options, or only the shared ones (the YAML inputs, none at all).
        shared = arguments_module.__name__ in ("schemac.cli_inputs", "schemac.cli_command")
        assert shared or arguments_module is handler_module, command.name


def test_the_parser_lists_the_subcommands_in_order() -> None:
    parser = build_parser()
    (action,) = [a for a in parser._actions if a.dest == "command"]
    assert list(action.choices) == [c.name for c in SUBCOMMANDS]  # type: ignore[arg-type]
    for command in SUBCOMMANDS:
        sub = action.choices[command.name]  # type: ignore[index]
        assert sub.get_default("handler") is command.handler


def test_cli_module_defines_no_handler() -> None:
    tree = ast.parse(inspect.getsource(schemac.cli))
    functions = {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
    assert functions <= {
        "build_parser",
        "version_text",
        "main",
        "_interrupt",
        "_terminate_as_interrupt",
    }
