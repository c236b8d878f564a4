"""``schemac dump-ir``: the IR after the passes, or after any one of them, as text or JSON."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from schemac.cli_command import Subcommand
from schemac.cli_inputs import add_input_arguments, checked_module, load_inputs_partially
from schemac.cli_pipeline import (
    AFTER_LOAD,
    add_pipeline_arguments,
    pipeline_usage_error,
    run_requested_passes,
)
from schemac.cli_release import report_warnings, target_release
from schemac.cli_selection import add_select_argument
from schemac.diagnostics import did_you_mean, printable
from schemac.ir.module import Module
from schemac.ir.printer import module_to_json, module_to_text, select_functions
from schemac.ir.resolved_printer import resolved_to_json, resolved_to_text, select_resolved


def _arguments(parser: argparse.ArgumentParser) -> None:
    add_input_arguments(parser)
    add_pipeline_arguments(parser)
    parser.add_argument(
        "--op",
        action="append",
        default=[],
        metavar="NAME",
        help="print only this operator ('add.Tensor', or 'add' for every overload); repeatable",
    )
    parser.add_argument(
        "--format", choices=("text", "json"), default="text", help="output format (default: text)"
    )
    parser.add_argument(
        "--spans", action="store_true", help="also print the file:line:col of every IR node"
    )
    add_select_argument(parser)


def _dump_ir(args: argparse.Namespace) -> int:
    problem = pipeline_usage_error(args)
    if problem is not None:
        sys.stderr.write(f"schemac dump-ir: error: {problem}\n")
        return 2
    target = target_release(args)
    load = load_inputs_partially(args, target)
    context = target.pass_context(verify=args.verify, left_out=load.left_out_bases)
    module = checked_module(load, lambda loaded: run_requested_passes(args, loaded, context))
    unknown = _unknown_operators(module, args.op)
    if unknown is not None:
        sys.stderr.write(f"schemac dump-ir: error: {printable(unknown)}\n")
        return 1
    if args.after != AFTER_LOAD:
        if args.op:
            module = select_resolved(module, args.op)
        resolved = resolved_to_json if args.format == "json" else resolved_to_text
        sys.stdout.write(resolved(module))
    else:
        if args.op:
            module = select_functions(module, args.op)
        printer = module_to_json if args.format == "json" else module_to_text
        sys.stdout.write(printer(module, spans=args.spans))
    if args.format == "json":
        sys.stdout.write("\n")
    report_warnings(target, context.warnings, sys.stderr)
    return 0


def _unknown_operators(module: Module, ops: Sequence[str]) -> str | None:
    """Why ``--op`` names no operator of ``module`` (an empty dump would look like success)."""
    names = {str(f.name) for f in module.functions} | {str(f.name.name) for f in module.functions}
    missing = [op for op in ops if op not in names]
    if not missing:
        return None
    hint = did_you_mean(missing[0], names)
    listed = ", ".join(repr(op) for op in missing)
    return f"--op {listed}: no such operator" + (f" ({hint})" if hint else "")


DUMP_IR = Subcommand(
    "dump-ir",
    help="print the IR after the passes (or after any one pass)",
    description="Load the YAML files, run the pass pipeline (or stop after --after "
    f"PASS; '--after {AFTER_LOAD}' shows the front end's IR) and print the IR, as "
    "text or JSON.",
    arguments=_arguments,
    handler=_dump_ir,
)
