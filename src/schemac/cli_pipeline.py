"""The command-line side of the pass pipeline: ``schemac passes`` and dump-ir's pass options.

Kept out of :mod:`schemac.cli` so that the CLI module stays a list of thin
subcommands: ``cli`` calls :func:`add_pipeline_arguments` for a subcommand that
runs passes and :func:`run_requested_passes` in its handler.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from schemac.cli_command import Subcommand, no_arguments
from schemac.cli_selection import with_selection
from schemac.ir.module import Module
from schemac.passes.base import PassContext
from schemac.passes.manager import PassManager, PipelineError
from schemac.passes.selective_build import SelectiveBuild

#: ``--after load`` shows the module as the front end built it, before any pass.
AFTER_LOAD = "load"


def add_pipeline_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--after",
        metavar="PASS",
        help=f"stop after this pass ('{AFTER_LOAD}': before any pass; default: run every "
        "pass); see 'schemac passes'",
    )
    parser.add_argument(
        "--verify", action="store_true", help="check the IR's invariants after every pass"
    )
    parser.add_argument(
        "--time-passes", action="store_true", help="print each pass's wall time to stderr"
    )


def pipeline_usage_error(args: argparse.Namespace) -> str | None:
    """What is wrong with the pipeline options, if anything (a usage error: exit 2)."""
    if args.after is None or args.after == AFTER_LOAD:
        return None
    try:
        PassManager.default().check_pass_name(args.after)
    except PipelineError as error:
        return str(error)
    return None


def run_requested_passes(
    args: argparse.Namespace, module: Module, context: PassContext | None = None
) -> Module:
    """Run the pipeline as the options ask (check :func:`pipeline_usage_error` first)."""
    if args.after == AFTER_LOAD:
        return module
    manager = with_selection(PassManager.default(), getattr(args, "select", None))
    context = PassContext(verify=args.verify) if context is None else context
    result = manager.run(context, module, stop_after=args.after)
    if args.time_passes:
        sys.stderr.write(result.format_timings() + "\n")
    return result.module


def compile_pass_manager(targets: Sequence[str], select: Path | None) -> PassManager:
    """The passes ``schemac compile -t TARGETS`` needs, nothing more.

    Those that provide what the selected backends read (their registry
    ``requires``), plus selective-build and what it needs when ``--select``
    is given; ``dump-ir`` keeps running every pass.
    """
    from schemac.backends.registry import required_facts

    facts = set(required_facts(targets))
    if select is not None:
        facts.update(SelectiveBuild.provides)
    return with_selection(PassManager.for_requirements(facts), select)


def _list_passes(args: argparse.Namespace) -> int:
    for p in PassManager.default().passes:
        print(f"{p.name}: {p.summary}")
        print(f"    requires: {', '.join(p.requires) or '-'}")
        print(f"    provides: {', '.join(p.provides) or '-'}")
    return 0


PASSES = Subcommand(
    "passes",
    help="list the passes of the pipeline, in the order they run",
    description="List every pass of the default pipeline in run order, with what it "
    "requires and provides.",
    arguments=no_arguments,
    handler=_list_passes,
)
