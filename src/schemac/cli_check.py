"""``schemac check``: load the files, run every pass and compile's checks, print every problem."""

from __future__ import annotations

import argparse
import sys

from schemac.backends.cpp_names import cpp_name_diagnostics
from schemac.cli_command import Subcommand
from schemac.cli_inputs import add_input_arguments, checked_module, load_inputs_partially
from schemac.cli_release import report_warnings, target_release
from schemac.diagnostics import InputError, SchemacError
from schemac.passes.manager import PassManager


def _check(args: argparse.Namespace) -> int:
    target = target_release(args)
    load = load_inputs_partially(args, target)
    # What compile would reject must fail check too: the passes' consistency
    # checks, then the names and defaults that must become C++; with the
    # load's errors, all in one run (Note [Every error in one run]).
    context = target.pass_context(left_out=load.left_out_bases)
    try:
        checked_module(
            load,
            lambda module: PassManager.default().run(context, module).module,
            names=cpp_name_diagnostics,
        )
    except SchemacError as error:
        raise InputError([*error.diagnostics, *context.warnings]) from None
    module = load.module
    print(
        f"ok: {len(module.functions)} functions, {len(module.tags)} tags, "
        f"{len(module.derivatives)} derivative entries, "
        f"{len(module.deprecated)} deprecated signatures"
    )
    report_warnings(target, context.warnings, sys.stderr)
    return 0


CHECK = Subcommand(
    "check",
    help="load the YAML files and report every problem in them",
    description="Load native_functions.yaml (and optionally tags, derivatives and "
    "deprecated signatures), run every pass and the checks compile makes before "
    "generating code, and print every diagnostic. Exit 0 if the files are valid, "
    "1 if not.",
    arguments=add_input_arguments,
    handler=_check,
)
