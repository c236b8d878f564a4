"""The ``schemac`` command line: argument parsing and dispatch, nothing else.

Each subcommand is one ``_register_*`` function that adds its parser and
points it at a handler; the handler calls library code and returns an exit
code.  Adding a subcommand means writing such a function and listing it in
:data:`SUBCOMMANDS`.

Exit codes: 0 success, 1 invalid input (every diagnostic printed to stderr as
``file:line:col: error: ...`` with the source line and a caret), 2 a usage
error (argparse's own convention).
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Any

from schemac.backends.cpp_names import cpp_name_diagnostics
from schemac.cli_backend import (
    BackendInput,
    add_backend_arguments,
    compile_targets,
    coverage_command,
    register_backend_init_command,
)
from schemac.cli_host import host_release_warnings
from schemac.cli_paths import output_paths_problem
from schemac.cli_pipeline import (
    AFTER_LOAD,
    add_pipeline_arguments,
    compile_pass_manager,
    pipeline_usage_error,
    register_passes_command,
    run_requested_passes,
)
from schemac.cli_release import (
    TargetRelease,
    add_release_arguments,
    release_usage_error,
    report_warnings,
    target_release,
)
from schemac.cli_selection import add_select_argument
from schemac.diagnostics import (
    InputError,
    SchemacError,
    count_text,
    did_you_mean,
    printable,
    render_all,
)
from schemac.frontend.loader import host_root_of, load_module, torch_yaml_paths
from schemac.ir.module import Module
from schemac.ir.printer import module_to_json, module_to_text, select_functions
from schemac.ir.resolved_printer import resolved_to_json, resolved_to_text, select_resolved
from schemac.passes.manager import PassManager

if TYPE_CHECKING:
    from schemac.compile_record import Recording

Handler = Callable[[argparse.Namespace], int]


# -- shared options ------------------------------------------------------------
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
        "paths given explicitly replace the corresponding file",
    )
    parser.add_argument(
        "--host-templates",
        type=Path,
        metavar="DIR",
        help="PyTorch's template folders to splice generated code into (torchgen's "
        "'packaged' folder, or a PyTorch checkout); default with --torch: that torch's",
    )
    add_release_arguments(parser)


def load_inputs(
    args: argparse.Namespace, target: TargetRelease, *, autograd_files: bool = True
) -> Module:
    """The module named by :func:`add_input_arguments`' options, for ``target``.

    ``autograd_files=False``: with ``--torch``, leave torch's derivatives and
    deprecated signatures out unless named (outputs that never read them).
    """
    native, tags = args.native_functions, args.tags
    derivatives, deprecated = args.derivatives, args.deprecated
    host = args.host_templates
    if args.torch:
        paths = torch_yaml_paths()
        native = native or paths.native_functions
        tags = tags or paths.tags
        if autograd_files:
            derivatives = derivatives or paths.derivatives
            deprecated = deprecated or paths.deprecated
        host = host or host_root_of(paths.native_functions)
    return load_module(
        native, tags, derivatives, deprecated, profile=target.profile, host_templates=host
    )


def _require_input(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    if args.native_functions is None and not args.torch:
        parser.error("give NATIVE_YAML or --torch")


# -- check -----------------------------------------------------------------------
def _register_check(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = subparsers.add_parser(
        "check",
        help="load the YAML files and report every problem in them",
        description="Load native_functions.yaml (and optionally tags, derivatives and "
        "deprecated signatures), run every pass and the checks compile makes before "
        "generating code, and print every diagnostic. Exit 0 if the files are valid, "
        "1 if not.",
    )
    add_input_arguments(parser)
    parser.set_defaults(handler=_check, parser=parser)


def _check(args: argparse.Namespace) -> int:
    target = target_release(args)
    module = load_inputs(args, target)
    # What compile would reject must fail check too: the passes' consistency
    # checks, then the names and defaults that must become C++.
    context = target.pass_context()
    resolved = PassManager.default().run(context, module).module
    problems = cpp_name_diagnostics(resolved)
    if problems:
        raise InputError([*problems, *context.warnings])
    print(
        f"ok: {len(module.functions)} functions, {len(module.tags)} tags, "
        f"{len(module.derivatives)} derivative entries, "
        f"{len(module.deprecated)} deprecated signatures"
    )
    report_warnings(target, context.warnings, sys.stderr)
    return 0


# -- dump-ir -----------------------------------------------------------------------
def _register_dump_ir(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = subparsers.add_parser(
        "dump-ir",
        help="print the IR after the passes (or after any one pass)",
        description="Load the YAML files, run the pass pipeline (or stop after --after "
        f"PASS; '--after {AFTER_LOAD}' shows the front end's IR) and print the IR, as "
        "text or JSON.",
    )
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
    parser.set_defaults(handler=_dump_ir, parser=parser)


def _dump_ir(args: argparse.Namespace) -> int:
    problem = pipeline_usage_error(args)
    if problem is not None:
        sys.stderr.write(f"schemac dump-ir: error: {problem}\n")
        return 2
    target = target_release(args)
    context = target.pass_context(verify=args.verify)
    module = run_requested_passes(args, load_inputs(args, target), context)
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


# -- compile ---------------------------------------------------------------------
def _path(text: str) -> Path:
    """An output path; '' would silently mean the current directory (Path('') is '.')."""
    if not text.strip():
        raise argparse.ArgumentTypeError("an empty path")
    return Path(text)


def _register_compile(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    from schemac.backends.registry import ALL, TARGET_NAMES

    parser = subparsers.add_parser(
        "compile",
        help="generate C++ (and Python-binding C++) from the YAML files",
        description="Load the YAML files, run the pass pipeline and the backends of the "
        "selected targets, and write their files to OUT: only files whose bytes changed "
        "are written, files an earlier run generated for these targets and this run did "
        "not are removed, and nothing in OUT changes unless the whole compile succeeds.",
    )
    add_input_arguments(parser)
    parser.add_argument(
        "-t",
        "--targets",
        metavar="TARGETS",
        help=f"comma-separated targets: {ALL} or any of {', '.join(TARGET_NAMES)} "
        "(required unless --backend is given)",
    )
    add_backend_arguments(parser)
    parser.add_argument("-o", "--out", required=True, type=_path, help="output directory")
    parser.add_argument(
        "--dry-run", action="store_true", help="report what would change; write nothing"
    )
    parser.add_argument(
        "--depfile", type=_path, metavar="FILE", help="write a make-style depfile: outputs: inputs"
    )
    parser.add_argument(
        "--outputs-list",
        type=_path,
        metavar="FILE",
        help="write the path of every output, one a line (for build systems)",
    )
    parser.add_argument(
        "--verify", action="store_true", help="check the IR's invariants after every pass"
    )
    parser.add_argument(
        "--time-passes",
        action="store_true",
        help="print the wall time of every pass, every target and the writing to stderr",
    )
    parser.add_argument(
        "--select",
        type=Path,
        metavar="SEL",
        help="selective build: a selected_operators.yaml (or a list of operator names); "
        "only the selected operators and what they need are compiled",
    )
    parser.add_argument(
        "-j",
        "--jobs",
        type=_jobs,
        default=default_jobs(),
        metavar="N",
        help="processes to use: with 2 (the default on a machine with 2 or more cores) a "
        "helper process writes the files while the backends generate them (from the "
        "128th file on), passes that only some backends need (match-derivatives for -t "
        "python) run in a worker beside the other backends, and the autograd backend "
        "makes half its files in a second process; 1 does everything in one process. "
        "The output is the same either way",
    )
    parser.set_defaults(handler=_compile, parser=parser)


def default_jobs() -> int:
    """What ``-j`` is when not given: 2 processes on a machine with 2 cores or more."""
    return min(2, os.cpu_count() or 1)


def _jobs(text: str) -> int:
    try:
        jobs = int(text)
    except ValueError:
        jobs = 0
    if jobs < 1:
        raise argparse.ArgumentTypeError(f"expected a positive number of processes, got {text!r}")
    return jobs


def _output_paths_problem(args: argparse.Namespace) -> str | None:
    """Why ``-o``, ``--depfile`` or ``--outputs-list`` cannot be written (:mod:`.cli_paths`)."""
    inputs = [
        ("NATIVE_YAML", args.native_functions),
        ("--tags", args.tags),
        ("--derivatives", args.derivatives),
        ("--deprecated", args.deprecated),
        ("--select", args.select),
        ("--backend", getattr(args, "backend", None)),
    ]
    return output_paths_problem(args.out, args.depfile, args.outputs_list, inputs)


def _tell(message: str) -> None:
    sys.stderr.write(printable(message) + "\n")
    sys.stderr.flush()


def _compile(args: argparse.Namespace) -> int:
    from schemac.backends.registry import UnknownTargetError

    try:
        targets = compile_targets(args.targets, args.backend is not None)
    except UnknownTargetError as error:
        args.parser.print_usage(sys.stderr)
        sys.stderr.write(f"{args.parser.prog}: error: {error}\n")
        return 2
    problem = _output_paths_problem(args)
    if problem is not None:
        args.parser.print_usage(sys.stderr)
        sys.stderr.write(f"{args.parser.prog}: error: {printable(problem)}\n")
        return 2
    from schemac.compile_record import start_recording

    # For the next run's no-op check: Note [Up-to-date check].
    recording = start_recording(args.argv, args.out, args.dry_run)
    try:
        return _compile_recorded(args, targets, recording)
    finally:
        if recording is not None:
            recording.stop()


def _compile_recorded(
    args: argparse.Namespace, targets: Sequence[str], recording: Recording | None
) -> int:
    from schemac.backends.driver import compile_to_directory
    from schemac.compile_plan import split_late_work

    target = target_release(args)
    context = target.pass_context(verify=args.verify)
    backend = BackendInput.read(args.backend, args.impl_path)
    with backend.reported_together():
        # The backend's files read neither derivatives nor deprecated signatures.
        module = load_inputs(args, target, autograd_files=targets != ("backend",))
        # Host text of another release than the target: Note [Host text of another release].
        host_warnings = host_release_warnings(args, target, module, targets)
        every_target = targets
        if recording is not None and args.depfile is None and args.outputs_list is None:
            # Targets whose inputs did not change keep their files: Note [Target reuse].
            reused = recording.plan_reuse(targets, module.sources)
            targets = tuple(t for t in targets if t not in reused)
        # Passes only some backends need may run beside the others: Note [Late work].
        manager, late = split_late_work(
            compile_pass_manager(targets, args.select), targets, context
        )
        pipeline = manager.run(context, module)
    module = backend.attached_to(pipeline.module)
    try:
        result = compile_to_directory(
            module,
            targets,
            args.out,
            dry_run=args.dry_run,
            depfile=args.depfile,
            outputs_list=args.outputs_list,
            extra_inputs=() if args.select is None else (str(args.select),),
            jobs=args.jobs,
            late=late,
            notify=_tell,
            profile=target.profile,
        )
        if recording is not None:
            recording.finish(
                result,
                every_target,
                (args.depfile, args.outputs_list),
                () if args.select is None else (str(args.select),),
                warned=bool(
                    target.warnings or host_warnings or context.warnings or result.warnings
                ),
            )
    except OSError as error:
        sys.stderr.write(f"schemac: error: cannot write the outputs: {printable(str(error))}\n")
        return 1
    if args.time_passes:
        sys.stderr.write(pipeline.format_timings() + "\n" + result.format_timings() + "\n")
    report = result.report if recording is None else recording.report(result.report)
    for line in report.lines():
        if args.dry_run or line.startswith("remove "):
            print(printable(line))
    print(printable(report.summary()))
    report_warnings(target, [*host_warnings, *context.warnings, *result.warnings], sys.stderr)
    return 0


# -- coverage --------------------------------------------------------------------
def _register_coverage(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = subparsers.add_parser(
        "coverage",
        help="which operators an out-of-tree backend implements, and which it lacks",
        description="Classify every operator of the native YAML for the backend YAML: "
        "implemented, reached through composite kernels, CPU-fallback only, unavailable; "
        "and list the core operators and the operators every PrivateUse1 device must "
        "provide that it lacks.",
    )
    add_input_arguments(parser)
    parser.add_argument(
        "--backend", type=Path, required=True, metavar="BACKEND_YAML", help="the backend's YAML"
    )
    parser.add_argument(
        "--format", choices=("text", "json"), default="text", help="output format (default: text)"
    )
    parser.set_defaults(handler=_coverage)
    parser.set_defaults(parser=parser)


def _coverage(args: argparse.Namespace) -> int:
    from schemac.passes.manager import PassManager

    target = target_release(args)
    return coverage_command(
        args,
        lambda: load_inputs(args, target, autograd_files=False),
        lambda module: PassManager.default().run(target.pass_context(), module).module,
    )


# -- explain ---------------------------------------------------------------------
def _register_explain(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = subparsers.add_parser(
        "explain",
        help="everything schemac knows and makes of one operator",
        description="For an operator ('add.Tensor', or 'add' for every overload): where it is "
        "defined, its resolved dispatch table, its group and view group, its derivative entry "
        "and backward node, its signature in every C++ view and in Python, and the generated "
        "files and symbols it appears in (compiled in memory for -t, or read from -o OUT).",
    )
    parser.add_argument("operator", metavar="OP", help="add.Tensor, or add for every overload")
    add_input_arguments(parser)
    parser.add_argument(
        "--format", choices=("text", "json"), default="text", help="output format (default: text)"
    )
    parser.add_argument(
        "-t", "--targets", default="all", help="targets whose files are searched (default: all)"
    )
    parser.add_argument(
        "-o", "--out", type=_path, help="search this compile output instead of compiling in memory"
    )
    parser.add_argument("--no-files", action="store_true", help="do not list generated files")
    parser.set_defaults(handler=_explain, parser=parser)


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
    module = manager.run(target.pass_context(), load_inputs(args, target)).module
    files = None
    if args.out is not None:
        files = files_in(args.out)
    elif not args.no_files:
        files = list(emit_targets(module, targets, profile=target.profile))
    records = explain(module, args.operator, files)
    sys.stdout.write(to_json(records) + "\n" if args.format == "json" else to_text(records))
    return 0


#: Every subcommand's registration function, in the order ``--help`` lists them.
SUBCOMMANDS: tuple[Callable[[argparse._SubParsersAction], None], ...] = (  # type: ignore[type-arg]
    _register_check,
    _register_dump_ir,
    register_passes_command,
    _register_compile,
    _register_explain,
    _register_coverage,
    register_backend_init_command,
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="schemac",
        description="A schema compiler for native_functions.yaml and friends.",
    )
    parser.add_argument("--version", action="version", version=version_text())
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for register in SUBCOMMANDS:
        register(subparsers)
    return parser


def version_text() -> str:
    """What ``schemac --version`` prints: ``schemac 0.1.0``."""
    from schemac.version import version

    return f"schemac {version()}"


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit_:  # argparse: --help (0) or a usage error (2)
        return exit_.code if isinstance(exit_.code, int) else 2
    # The command line as given: the no-op check's key hashes it.
    args.argv = list(sys.argv[1:] if argv is None else argv)
    try:
        if hasattr(args, "native_functions"):
            _require_input(args.parser, args)
            problem = release_usage_error(args)
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
