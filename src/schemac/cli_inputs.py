"""The YAML inputs of the commands that load a module, and how their errors are reported.

Note [Every error in one run]: ``check``, ``dump-ir`` and ``compile`` load
the files without raising (:func:`~schemac.frontend.loader.load_module_partially`),
run the passes on what loaded, and raise the load's diagnostics, the passes'
and (for ``check`` and a failing ``compile``) the C++ names' together, sorted
by file and position.  The loader leaves out what failed and what depends on
it, so the passes report nothing the load already did.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from schemac.cli_release import TargetRelease, add_release_arguments
from schemac.diagnostics import Diagnostic, InputError, SchemacError
from schemac.frontend.loader import (
    LoadResult,
    host_root_of,
    load_module_partially,
    torch_yaml_paths,
)
from schemac.ir.module import Module

if TYPE_CHECKING:
    from schemac.frontend.part_memo import PartMemo


def add_input_arguments(parser: argparse.ArgumentParser) -> None:
    """The YAML inputs every command that loads a module takes."""
    parser.add_argument(
        "native_functions",
        metavar="NATIVE_YAML",
        nargs="?",
        type=Path,
        help="native_functions.yaml to load (omit with --torch)",
    )
    parser.add_argument("--tags", type=Path, help="tags.yaml: the tags that entries may use")
    parser.add_argument(
        "--derivatives", type=Path, help="derivatives.yaml: autograd formulas to load and check"
    )
    parser.add_argument(
        "--deprecated", type=Path, help="deprecated.yaml: deprecated Python signatures"
    )
    parser.add_argument(
        "--torch",
        action="store_true",
        help="use the YAML files of the installed torch package; "
        "paths given explicitly replace the corresponding file (with your own "
        "NATIVE_YAML, torch gives only tags.yaml and its headers' facts)",
    )
    parser.add_argument(
        "--host-templates",
        type=Path,
        metavar="DIR",
        help="PyTorch's template folders to splice generated code into (torchgen's "
        "'packaged' folder, or a PyTorch checkout); default with --torch: that torch's",
    )
    add_release_arguments(parser)


def input_usage_error(args: argparse.Namespace) -> str | None:
    if args.native_functions is None and not args.torch:
        return "give NATIVE_YAML or --torch"
    return None


def load_inputs_partially(
    args: argparse.Namespace,
    target: TargetRelease,
    *,
    autograd_files: bool = True,
    memo: PartMemo | None = None,
) -> LoadResult:
    """What :func:`add_input_arguments`' options name, loaded for ``target``, errors beside.

    ``autograd_files=False``: with ``--torch``, leave torch's derivatives and
    deprecated signatures out unless named (outputs that never read them).
    ``memo``: parts an earlier compile into the same OUT loaded (Note [Loaded
    parts remembered] in :mod:`schemac.frontend.part_memo`).
    """
    native, tags = args.native_functions, args.tags
    derivatives, deprecated = args.derivatives, args.deprecated
    host = args.host_templates
    if args.torch:
        paths = torch_yaml_paths()
        # torch's derivatives.yaml and deprecated.yaml describe torch's own
        # operators: over a library's NATIVE_YAML (an extension's ops.yaml)
        # every entry would be an error, so they come only with torch's YAML.
        # Tags are shared vocabulary and always come from torch.
        if native is None and autograd_files:
            derivatives = derivatives or paths.derivatives
            deprecated = deprecated or paths.deprecated
        native = native or paths.native_functions
        tags = tags or paths.tags
        host = host or host_root_of(paths.native_functions)
    return load_module_partially(
        native,
        tags,
        derivatives,
        deprecated,
        profile=target.profile,
        host_templates=host,
        memo=memo,
    )


def load_inputs(
    args: argparse.Namespace, target: TargetRelease, *, autograd_files: bool = True
) -> Module:
    """:func:`load_inputs_partially`, raising the load's errors (commands that run no passes)."""
    result = load_inputs_partially(args, target, autograd_files=autograd_files)
    result.raise_if_failed()
    return result.module


Names = Callable[[Module], tuple[Diagnostic, ...]]


def checked_module(
    load: LoadResult,
    run_passes: Callable[[Module], Module],
    *,
    names: Names | None = None,
    failure: SchemacError | None = None,
) -> Module:
    """The passes' module, or every problem of the load, the passes and ``names`` at once.

    ``names``: further checks of the resolved module (or, when the passes
    fail, of the loaded one), such as the C++ names ``compile`` refuses.
    ``failure``: the passes failed already with this error; they are not run again.
    """
    resolved, problems = every_problem(load, run_passes, names=names, failure=failure)
    if any(p.is_error for p in problems) or resolved is None:
        raise InputError(problems)
    return resolved


def every_problem(
    load: LoadResult,
    run_passes: Callable[[Module], Module],
    *,
    names: Names | None = None,
    failure: SchemacError | None = None,
) -> tuple[Module | None, list[Diagnostic]]:
    """:func:`checked_module`'s findings, not raised: the passes' module (None if they
    failed or could not run) and every diagnostic."""
    problems: list[Diagnostic] = list(load.diagnostics)
    resolved: Module | None = None
    if failure is not None:
        problems.extend(failure.diagnostics)
    elif load.passes_may_run:
        try:
            resolved = run_passes(load.module)
        except SchemacError as error:
            problems.extend(error.diagnostics)
        except Exception:
            # A pass tripping over a module the load already refused: the
            # load's errors are the report (as in the pass manager).
            if not load.failed:
                raise
    if names is not None and load.passes_may_run:
        problems.extend(names(resolved if resolved is not None else load.module))
    return resolved, problems
