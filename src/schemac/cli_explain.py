"""``schemac explain OP``: everything schemac knows and makes of one operator."""

from __future__ import annotations

import argparse
import sys

from schemac.cli_command import Subcommand
from schemac.cli_inputs import add_input_arguments, checked_module, load_inputs_partially
from schemac.cli_paths import output_path
from schemac.cli_pipeline import compile_pass_manager
from schemac.cli_release import target_release


def _arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("operator", metavar="OP", help="add.Tensor, or add for every overload")
    add_input_arguments(parser)
    parser.add_argument(
        "--format", choices=("text", "json"), default="text", help="output format (default: text)"
    )
    parser.add_argument(
        "-t", "--targets", default="all", help="targets whose files are searched (default: all)"
    )
    parser.add_argument(
        "-o",
        "--out",
        type=output_path,
        help="search this compile output instead of compiling in memory",
    )
    parser.add_argument("--no-files", action="store_true", help="do not list generated files")


def _explain(args: argparse.Namespace) -> int:
    from schemac.backends.driver import emit_targets
    from schemac.backends.registry import UnknownTargetError, parse_targets
    from schemac.explain import explain, files_in, to_json, to_text

    try:
        targets = parse_targets(args.targets)
    except UnknownTargetError as error:
        args.parser.print_usage(sys.stderr)
        sys.stderr.write(f"{args.parser.prog}: error: {error}\n")
        return 2
    # Every pass, whatever -t says: explain shows derivatives and groups.
    target = target_release(args)
    manager = compile_pass_manager(parse_targets("all"), None)
    load = load_inputs_partially(args, target)
    context = target.pass_context(left_out=load.left_out_bases)
    module = checked_module(load, lambda loaded: manager.run(context, loaded).module)
    files = None
    if args.out is not None:
        files = files_in(args.out)
    elif not args.no_files:
        files = list(emit_targets(module, targets, profile=target.profile))
    records = explain(module, args.operator, files)
    sys.stdout.write(to_json(records) + "\n" if args.format == "json" else to_text(records))
    return 0


EXPLAIN = Subcommand(
    "explain",
    help="everything schemac knows and makes of one operator",
    description="For an operator ('add.Tensor', or 'add' for every overload): where it is "
    "defined, its resolved dispatch table, its group and view group, its derivative entry "
    "and backward node, its signature in every C++ view and in Python, and the generated "
    "files and symbols it appears in (compiled in memory for -t, or read from -o OUT).",
    arguments=_arguments,
    handler=_explain,
)
