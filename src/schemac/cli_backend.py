"""The command line of out-of-tree backends: ``compile --backend``, ``coverage``, ``backend-init``.

Kept out of :mod:`schemac.cli` so that file stays a list of subcommands.  The
backend YAML's problems are reported together with those found against the
module (unknown operators, split families, missing kernels): the loader
returns its diagnostics instead of raising, and :func:`attach_backend` raises
them all at once.
"""

from __future__ import annotations

import argparse
import contextlib
from collections.abc import Iterator
from pathlib import Path

import attrs

from schemac.cli_command import Subcommand
from schemac.cli_inputs import add_input_arguments, checked_module, load_inputs_partially
from schemac.cli_release import target_release
from schemac.diagnostics import Diagnostic, InputError, SchemacError
from schemac.frontend.backend_loader import read_backend_yaml
from schemac.frontend.loader import LoadResult
from schemac.ir.external_backend import ExternalBackend
from schemac.ir.module import Module
from schemac.profiles import load_profile, reference_profile


def add_backend_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--backend",
        type=Path,
        metavar="BACKEND_YAML",
        help="an out-of-tree backend's YAML (torchgen's gen_backend_stubs format): write "
        "<Backend>NativeFunctions.h and Register<Backend>.cpp (only these without -t)",
    )
    parser.add_argument(
        "--impl-path",
        type=Path,
        nargs="+",
        default=[],
        metavar="FILE",
        help="with --backend: C++ files defining the kernels; a listed kernel they do not "
        "define is an error at its YAML entry",
    )


def attach_backend(
    module: Module, spec: ExternalBackend, problems: list[Diagnostic], impl_paths: list[Path]
) -> Module:
    """The module carrying ``spec``, after binding it and checking ``--impl-path``."""
    from schemac.backends.backend_stubs.bind import bind_backend
    from schemac.backends.backend_stubs.impl_check import missing_kernel_diagnostics

    bound, found = bind_backend(module, spec)
    problems = [*problems, *found]
    if impl_paths and not found and bound.has_forward:
        problems += missing_kernel_diagnostics(bound, impl_paths)
    if problems:
        raise InputError(problems)
    return module.evolve(external_backend=spec)


@attrs.frozen
class BackendInput:
    """``compile --backend``'s YAML, read before the module so its problems join the rest."""

    path: Path | None
    spec: ExternalBackend | None
    problems: tuple[Diagnostic, ...]
    impl_paths: tuple[Path, ...]

    @classmethod
    def read(cls, path: Path | None, impl_paths: list[Path]) -> BackendInput:
        if path is None:
            return cls(None, None, (), ())
        spec, problems = read_backend_yaml(path)
        return cls(path, spec, problems, tuple(impl_paths))

    @contextlib.contextmanager
    def reported_together(self) -> Iterator[None]:
        """Errors of loading and the passes, raised with the backend YAML's own."""
        try:
            yield
        except SchemacError as error:
            if not self.problems:
                raise
            raise InputError([*error.diagnostics, *self.problems]) from None

    def binding_problems(self, module: Module, load: LoadResult) -> list[Diagnostic]:
        """What binding finds against the passes' module of a load that failed.

        Operators of entries the load left out are missing from ``module``:
        what the backend YAML says of them is not reported (it follows from
        the load's own error).
        """
        if self.spec is None:
            return []
        from schemac.backends.backend_stubs.bind import bind_backend

        _, found = bind_backend(module, self.spec)
        listed = (*self.spec.supported, *self.spec.autograd, *self.spec.symint)
        hidden = {op.span for op in listed if load.left_out(op.name)}
        return [d for d in found if d.span not in hidden]

    def unknown_operator_problems(self, module: Module) -> list[Diagnostic]:
        """The backend YAML's unknown operators, against the loaded ``module``
        of a compile whose passes failed (they cannot bind it)."""
        if self.spec is None:
            return []
        from schemac.backends.backend_stubs.bind import unknown_operators

        return list(unknown_operators(module, self.spec))

    def attached_to(self, module: Module) -> Module:
        """``module`` carrying the backend (unchanged without ``--backend``)."""
        if self.path is None:
            return module
        if self.spec is None:
            raise InputError(self.problems)
        return attach_backend(module, self.spec, list(self.problems), list(self.impl_paths))


def compile_targets(text: str | None, with_backend: bool) -> tuple[str, ...]:
    """``-t``'s targets, plus ``backend`` with ``--backend``; ``-t`` may be left out then."""
    from schemac.backends.registry import UnknownTargetError, parse_targets

    if text is None:
        if not with_backend:
            raise UnknownTargetError(
                "the following arguments are required: -t/--targets (or --backend BACKEND_YAML)"
            )
        return ("backend",)
    targets = parse_targets(text)
    if with_backend and "backend" not in targets:
        targets = parse_targets(",".join((*targets, "backend")))
    return targets


def _coverage_arguments(parser: argparse.ArgumentParser) -> None:
    add_input_arguments(parser)
    parser.add_argument(
        "--backend", type=Path, required=True, metavar="BACKEND_YAML", help="the backend's YAML"
    )
    parser.add_argument(
        "--format", choices=("text", "json"), default="text", help="output format (default: text)"
    )


def _coverage(args: argparse.Namespace) -> int:
    """``schemac coverage``: print the backend's coverage report."""
    from schemac.backends.backend_stubs.bind import bind_backend
    from schemac.backends.backend_stubs.coverage import coverage_report
    from schemac.passes.manager import PassManager

    target = target_release(args)
    spec, problems = read_backend_yaml(args.backend)
    load = load_inputs_partially(args, target, autograd_files=False)
    context = target.pass_context(left_out=load.left_out_bases)
    try:
        module = checked_module(load, lambda m: PassManager.default().run(context, m).module)
    except SchemacError as error:
        raise InputError([*error.diagnostics, *problems]) from None
    if spec is None:
        raise InputError(problems)
    bound, found = bind_backend(module, spec)
    if problems or found:
        raise InputError([*problems, *found])
    # The lists of the release the module was loaded for (--torch-version).
    profile = reference_profile() if module.release is None else load_profile(module.release)
    report = coverage_report(module, bound, profile)
    print(report.to_json() if args.format == "json" else report.to_text(), end="")
    return 0


COVERAGE = Subcommand(
    "coverage",
    help="which operators an out-of-tree backend implements, and which it lacks",
    description="Classify every operator of the native YAML for the backend YAML: "
    "implemented, reached through composite kernels, CPU-fallback only, unavailable; "
    "and list the core operators and the operators every PrivateUse1 device must "
    "provide that it lacks.",
    arguments=_coverage_arguments,
    handler=_coverage,
)


def _backend_init_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("name", metavar="NAME", help="the device's name (lower-case identifier)")
    parser.add_argument("-o", "--out", type=Path, help="directory to write (default: NAME)")


def _backend_init(args: argparse.Namespace) -> int:
    import sys

    from schemac.backends.backend_stubs.scaffold import name_problem, write_scaffold

    problem = name_problem(args.name)
    if problem is not None:
        args.parser.print_usage(sys.stderr)
        sys.stderr.write(f"{args.parser.prog}: error: {problem}\n")
        return 2
    directory = args.out or Path(args.name)
    try:
        written = write_scaffold(args.name, directory)
    except FileExistsError as error:
        sys.stderr.write(f"schemac: error: {error} exists; backend-init never overwrites\n")
        return 1
    for path in written:
        print(f"create {path}")
    return 0


BACKEND_INIT = Subcommand(
    "backend-init",
    help="write a starter tree for a new PrivateUse1 device",
    description="Write NAME/ (or -o DIR): backend.yaml, csrc/device.{h,cpp} (allocator, "
    "device guard, hooks), csrc/kernels.cpp (the operators every device needs, over "
    "host memory), NAME/__init__.py (rename PrivateUse1, register torch.NAME) and "
    "NAME/build.py (schemac + cpp_extension). Existing files are never overwritten.",
    arguments=_backend_init_arguments,
    handler=_backend_init,
)
