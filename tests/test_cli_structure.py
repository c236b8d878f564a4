"""The command line's shape: each subcommand's options and handler in one module, cli.py a list.

Each subcommand is a ``Subcommand`` value whose ``arguments`` and ``handler``
are defined side by side in one ``schemac.cli_*`` module; ``schemac.cli``
only lists them, parses and dispatches (the CLI stays thin).
"""

from __future__ import annotations

import argparse
import ast
import inspect
from pathlib import Path

import attrs
import pytest

import schemac.cli
from out_trees import compile_argv
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
        "_subcommand_of",
    }


def _subparser(parser: argparse.ArgumentParser, name: str) -> argparse.ArgumentParser:
    (action,) = [a for a in parser._actions if a.dest == "command"]
    return action.choices[name]  # type: ignore[index,no-any-return]


def test_a_parser_built_for_one_subcommand_is_the_whole_one_for_it() -> None:
    whole = build_parser()
    for command in SUBCOMMANDS:
        one = build_parser(command.name)
        assert one.format_help() == whole.format_help()
        assert (
            _subparser(one, command.name).format_help()
            == _subparser(whole, command.name).format_help()
        )


def test_a_command_line_builds_only_its_subcommands_options(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def not_this_one(parser: argparse.ArgumentParser) -> None:
        raise AssertionError("built the options of a subcommand the command line does not run")

    guarded = tuple(
        c if c.name == "compile" else attrs.evolve(c, arguments=not_this_one) for c in SUBCOMMANDS
    )
    monkeypatch.setattr(schemac.cli, "SUBCOMMANDS", guarded)
    assert schemac.cli.main(["compile", "--help"]) == 0
    assert "--targets" in capsys.readouterr().out
    # No subcommand named first (here --help): every subcommand's options, as before.
    with pytest.raises(AssertionError):
        schemac.cli.main(["--help"])


def test_a_compile_leaves_its_ir_to_the_console_scripts_exit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Note [Left to os._exit]: under ``launcher.run`` (which ends in ``os._exit``) a
    compile hands its IR and its record to the exit instead of freeing them on the
    way out; an importer calling ``main`` keeps nothing."""
    from schemac import launcher
    from schemac.compile_record import Recording
    from schemac.ir.module import Module

    toy = Path(__file__).resolve().parents[1] / "examples" / "toyops"
    argv = compile_argv(toy, tmp_path / "out", "schema,cpu")
    assert launcher._left is None
    assert launcher.main(argv) == 0
    launcher.leave_to_exit(object())
    assert launcher._left is None
    left: list[object] = []
    monkeypatch.setattr(launcher, "_left", left)
    assert launcher.main([*argv[:-1], str(tmp_path / "other")]) == 0
    assert any(isinstance(value, Module) for value in left)
    assert any(isinstance(value, Recording) for value in left)
