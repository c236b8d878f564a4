"""``schemac compile``: the YAML files in, the selected targets' files out, written as one change.

The handler checks the paths before any work (:mod:`.cli_paths`), records
the run for the next one's no-op check (:mod:`schemac.compile_record`), and
leaves the work to :func:`schemac.backends.driver.compile_to_directory`.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

import attrs

from schemac.backends.cpp_names import cpp_name_diagnostics
from schemac.cli_backend import BackendInput, add_backend_arguments, compile_targets
from schemac.cli_command import Subcommand
from schemac.cli_host import host_release_warnings
from schemac.cli_inputs import (
    add_input_arguments,
    every_problem,
    load_inputs_partially,
)
from schemac.cli_paths import output_path, output_paths_problem
from schemac.cli_pipeline import compile_pass_manager
from schemac.cli_release import report_warnings, target_release
from schemac.diagnostics import InputError, SchemacError, printable
from schemac.launcher import leave_to_exit

if TYPE_CHECKING:
    from schemac.compile_record import Recording
    from schemac.frontend.loader import LoadResult
    from schemac.passes.base import PassContext
    from schemac.passes.manager import PassManager


def _arguments(parser: argparse.ArgumentParser) -> None:
    from schemac.backends.registry import ALL, TARGET_NAMES

    add_input_arguments(parser)
    parser.add_argument(
        "-t",
        "--targets",
        metavar="TARGETS",
        help=f"comma-separated targets: {ALL} or any of {', '.join(TARGET_NAMES)} "
        "(required unless --backend is given)",
    )
    add_backend_arguments(parser)
    parser.add_argument("-o", "--out", required=True, type=output_path, help="output directory")
    parser.add_argument(
        "--dry-run", action="store_true", help="report what would change; write nothing"
    )
    parser.add_argument(
        "--depfile",
        type=output_path,
        metavar="FILE",
        help="write a make-style depfile: outputs: inputs",
    )
    parser.add_argument(
        "--outputs-list",
        type=output_path,
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
        default=None,
        metavar="N",
        help="processes to use: with 2 (the default on a machine with 2 or more cores, "
        "unless the YAML has fewer than 256 functions) the backends' emit calls are "
        "shared with a second process, each taking the next one as it is free (that "
        "process also runs the passes only its backends need, such as "
        "match-derivatives); 1 does everything in one process. The output is the same "
        "either way",
    )


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
            leave_to_exit(recording)  # Note [Left to os._exit]


def _raise_every_problem(
    load: LoadResult, manager: PassManager, context: PassContext, backend: BackendInput
) -> NoReturn:
    """A failed load's errors, with what the passes and the backend YAML's binding
    find in what loaded (Note [Every error in one run])."""
    context = attrs.evolve(context, left_out=load.left_out_bases)
    resolved, problems = every_problem(
        load, lambda m: manager.run(context, m).module, names=cpp_name_diagnostics
    )
    if resolved is not None:
        problems += backend.binding_problems(resolved, load)
    raise InputError(problems)


def _collect_class_garbage(targets: Sequence[str]) -> None:
    """Import the backends of ``targets``, then collect the cycles their classes left.

    Note [Class garbage collected before the load]
    ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
    A compile runs with the cyclic collector off (``launcher.run``), and
    leaves next to no cyclic garbage, but for one kind: attrs makes each
    slotted class anew and leaves the class it was given in a reference
    cycle (the class, its dict, its functions, descriptors and attrs' own
    builder), ~3,000 objects for the ~180 classes of ``-t headers``, kept
    until the end, in both processes of a split compile (~1.6 MB of peak RSS
    each).  So the selected targets' backends are imported here, before
    the YAML is loaded, rather than by their first emit call, and one
    collection frees those cycles while the heap holds little but modules
    (~15 ms of CPU on torch's ``-t headers``; a collection after the load
    would walk the whole IR).  Not on a re-run over an OUT that holds a
    state (:meth:`~schemac.compile_record.Recording.holds_state`): after an
    edit most units are skipped, and importing every backend up front cost
    ~0.1 s of CPU of torch's ``-t all`` edit; their first emit calls import
    the few that run, and the peak that matters is a cold compile's.
    """
    import gc

    from schemac.backends.split import emission_units

    for unit in emission_units(targets):
        unit.backend.load()
    gc.collect()


def _compile_recorded(
    args: argparse.Namespace, targets: Sequence[str], recording: Recording | None
) -> int:
    from schemac.backends.driver import compile_to_directory
    from schemac.backends.registry import target_reads
    from schemac.compile_plan import split_late_work

    target = target_release(args)
    context = target.pass_context(verify=args.verify)
    backend = BackendInput.read(args.backend, args.impl_path)
    if recording is None or not recording.holds_state():
        _collect_class_garbage(targets)
    with backend.reported_together():
        # Torch's derivatives and deprecated signatures only for targets that
        # read them (not the backend's files or -t headers: ~0.07 s of loading).
        autograd = any(target_reads(t) & {"derivatives", "deprecated"} for t in targets)
        memo = None if recording is None else recording.part_memo()
        load = load_inputs_partially(args, target, autograd_files=autograd, memo=memo)
        if load.failed:
            _raise_every_problem(load, compile_pass_manager(targets, args.select), context, backend)
        module = load.module
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
        try:
            pipeline = manager.run(context, module)
        except SchemacError as error:  # reported as check reports it
            _, problems = every_problem(
                load, lambda m: m, names=cpp_name_diagnostics, failure=error
            )
            # The backend YAML's unknown operators too: Note [Every error in one run].
            problems += backend.unknown_operator_problems(module)
            raise InputError(problems) from None
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
            werror=target.werror,
            reuse=recording,  # deferred files OUT still holds: Note [File reuse]
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
    # The IR and the files' records, not freed one object at a time on the way
    # out of the command: Note [Left to os._exit].
    leave_to_exit(load, pipeline, module, result)
    return 0


COMPILE = Subcommand(
    "compile",
    help="generate C++ (and Python-binding C++) from the YAML files",
    description="Load the YAML files, run the pass pipeline and the backends of the "
    "selected targets, and write their files to OUT: only files whose bytes changed "
    "are written, files an earlier run generated for these targets and this run did "
    "not are removed, and nothing in OUT changes unless the whole compile succeeds.",
    arguments=_arguments,
    handler=_compile,
)
