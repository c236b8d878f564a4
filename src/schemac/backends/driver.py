"""Running the selected backends over a module and gathering their files.

The one place that calls ``emit``: per target, every backend answering it, in
registry order.  It stamps each file with its target (the manifest needs it)
and adds it to one :class:`~schemac.backends.output.OutputSet`, which rejects
bad and duplicate paths.  :func:`compile_to_directory` then hands the set to
:func:`~schemac.backends.output.commit`, the only code that writes outputs.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path

import attrs

from schemac.backends.cpp_names import check_cpp_names
from schemac.backends.late_work import LateWork, run_late_inline, start_late_worker
from schemac.backends.output.background import StagerOnDemand, can_fork
from schemac.backends.output.commit import CommitReport, commit, depfile_text, write_if_changed
from schemac.backends.output.files import GeneratedFile, OutputSet
from schemac.backends.output.journal import recover
from schemac.backends.output.lock import output_lock
from schemac.backends.output.preflight import check_inputs_kept
from schemac.backends.output.staging import InlineStager
from schemac.backends.registry import EmitOptions, RunMemo, backends_for, fragment_unit
from schemac.backends.reuse import Deferred, FileReuse, Fingerprints, Fragments, check_render
from schemac.diagnostics import Diagnostic
from schemac.ir.module import Module
from schemac.profiles import ReleaseProfile, reference_profile


def emit_targets(
    module: Module,
    targets: Sequence[str],
    *,
    late: LateWork | None = None,
    parallel: bool = False,
    timings: list[tuple[str, float]] | None = None,
    on_file: Callable[[GeneratedFile], Iterable[str] | None] | None = None,
    profile: ReleaseProfile | None = None,
    warnings: list[Diagnostic] | None = None,
    reuse: FileReuse | None = None,
    kept: list[tuple[str, str]] | None = None,
    werror: bool = False,
) -> tuple[GeneratedFile, ...]:
    """Every file the ``targets`` produce for ``module``, sorted by path.

    ``reuse``: which deferred files OUT still holds (Note [File reuse]); those
    are left out of the result and their (path, target) appended to ``kept``.

    Raises :class:`~schemac.diagnostics.InputError` if a YAML name cannot be a
    C++ name (:mod:`.cpp_names`), :class:`~schemac.backends.output.OutputError`
    for bad or duplicate paths, and whatever
    :class:`~schemac.diagnostics.SchemacError` a backend raises for input it
    cannot express.  ``late``: passes still to run and the backends that need
    them (Note [Late work]); with ``parallel`` they run in a forked worker
    while the other backends emit here, and without late work the backends
    may fork themselves (``EmitOptions.parallel``).  ``timings``, if given, receives
    ``(target, seconds)``; ``on_file``, if given, sees each file as soon as
    its path was accepted, and may return the paths of files whose bytes it
    now holds: those come back without their text (Note [Texts handed
    over]).  ``profile``: the target release's (the reference release's when
    not given).  ``warnings``, if given, receives what the backends warned
    about (``EmitOptions.finish``; errors with ``werror``) and what the late
    passes warned about in the worker (in one process they go to the passes'
    own context).
    """
    profile = reference_profile() if profile is None else profile
    if late is not None and not (parallel and can_fork()):
        module, late = run_late_inline(module, late, timings), None
    worker = None if late is None else start_late_worker(module, late, targets, profile, reuse)
    try:
        if worker is None:
            check_cpp_names(module)
        # else the worker checks them after the late passes, in the order of
        # a run in one process, while this process emits.
        output = OutputSet()
        # Backends may fork only when no late worker shares the cores already.
        split = parallel and worker is None and can_fork()
        log: list[Diagnostic] = []
        here = _Emission(output, on_file, reuse)
        _emit_here(module, targets, late, split, here, timings, profile, werror, log)
        if kept is not None:
            kept.extend(here.kept)
    except (KeyboardInterrupt, SystemExit):
        if worker is not None:
            worker.discard()
        raise
    except BaseException:
        # The worker's diagnostics (late passes, names) come first, as they
        # would in one process; and a bad name may be why this failed.
        if worker is not None:
            worker.raise_if_failed()
        raise
    if worker is not None:
        done = worker.result()
        for file in done.files:
            if output.add(file) and on_file is not None:
                _forget(output, on_file(file))
        if timings is not None:
            timings.extend(done.timings)
        if warnings is not None:
            warnings.extend(done.warnings)
        if reuse is not None:
            for target, local, text in done.fragments:
                reuse.remember(target, local, text)
    if warnings is not None:
        warnings.extend(log)
    if not here.kept:
        return output.files()
    placeholders = {path for path, _ in here.kept}
    return tuple(f for f in output.files() if f.path not in placeholders)


class _Emission:
    """Where the files of the backends run in this process go."""

    def __init__(
        self,
        output: OutputSet,
        on_file: Callable[[GeneratedFile], Iterable[str] | None] | None,
        reuse: FileReuse | None,
    ) -> None:
        self.output = output
        self.on_file = on_file
        self.reuse = reuse
        self.kept: list[tuple[str, str]] = []
        # One per run, shared by deferred files and every target's fragments:
        # one module, so each function is digested once (a few thousand
        # remembered digests; the headers, registrations and declarations
        # all read the same functions).
        self.fingerprints = Fingerprints()

    def add(self, backend: str, target: str, file: GeneratedFile | Deferred) -> None:
        if isinstance(file, Deferred):
            check_render(file)
            reuse = self.reuse
            if reuse is not None and reuse.keep(
                target, file.path, self.fingerprints.local_key(backend, file)
            ):
                # Added with no text, so that paths are checked as in a cold run.
                if self.output.add(GeneratedFile(file.path, "", target, file.span)):
                    self.kept.append((file.path, target))
                return
            file = file.made()
        # Direct construction: attrs.evolve introspects the fields per call.
        stamped = GeneratedFile(file.path, file.text, target, file.span)
        if self.output.add(stamped) and self.on_file is not None:
            _forget(self.output, self.on_file(stamped))


def _emit_here(
    module: Module,
    targets: Sequence[str],
    late: LateWork | None,
    parallel: bool,
    emission: _Emission,
    timings: list[tuple[str, float]] | None,
    profile: ReleaseProfile,
    werror: bool,
    log: list[Diagnostic],
) -> None:
    """Every backend of ``targets`` not left to the late worker, into ``output``."""
    skipped = frozenset() if late is None else late.backends
    memo = RunMemo()  # one module, one run: see RunMemo
    for target in targets:
        start = time.perf_counter()
        options = EmitOptions(
            target=target,
            memo=memo,
            parallel=parallel,
            profile=profile,
            werror=werror,
            warnings=log,
        )
        entries = [entry for entry in backends_for(target) if entry.name not in skipped]
        for entry in entries:
            unit = fragment_unit(target, entry.name)
            fragments = Fragments(emission.reuse, unit, emission.fingerprints)
            for file in entry.load().emit(module, attrs.evolve(options, fragments=fragments)):
                emission.add(entry.name, target, file)
        if timings is not None and entries:
            timings.append((target, time.perf_counter() - start))


#: Functions below which a compile whose ``jobs`` was not given runs in one
#: process.  Every helper process (the staging helper, the late-pass worker, a forked
#: backend half) costs its fork and the copy-on-write faults of the pages it
#: touches, 0.03-0.1 s of CPU each, and pays back only through emission and
#: file creation that a small module does not have: an empty ``-t all``
#: spent 0.1 s more CPU and wall time with ``-j 2`` than with ``-j 1``.
#: torch's files have ~2,600 functions; an extension library a few dozen.
SERIAL_BELOW_FUNCTIONS = 256


def effective_jobs(jobs: int | None, module: Module) -> int:
    """``jobs`` if given; else 2 on a machine with 2 cores or more, unless
    ``module`` is too small for helper processes to pay."""
    if jobs is not None:
        return jobs
    if len(module.functions) < SERIAL_BELOW_FUNCTIONS:
        return 1
    return min(2, os.cpu_count() or 1)


def _forget(output: OutputSet, handed: Iterable[str] | None) -> None:
    """Note [Texts handed over]: with ``-j 2`` the staging helper holds every
    file's bytes once it has started, and compares and writes them itself;
    with ``-j 1`` :class:`~.output.staging.InlineStager` compares and stages
    each file as it arrives.  What the commit needs of a file after that is
    its path and target, and the no-op record its digest, which the stager
    gives back (:attr:`~.output.staging.Staged.digests`).  Keeping the texts
    until the commit was the largest part of the peak memory of a compile
    (20 MiB of ``-t headers``' ~100), so they are dropped as soon as a stager
    has them."""
    for path in handed or ():
        output.forget_text(path)


def compiler_files() -> list[str]:
    """schemac's own sources, templates and grammar: outputs depend on them too.

    Listing them in the depfile makes a build regenerate after schemac is
    upgraded or a template is edited, not only after a YAML file changes.
    """
    package = Path(__file__).resolve().parents[1]
    suffixes = {".py", ".mako", ".lark"}
    return sorted(str(p) for p in package.rglob("*") if p.suffix in suffixes and p.is_file())


@attrs.frozen
class CompileResult:
    files: tuple[GeneratedFile, ...]
    report: CommitReport
    #: ``(target, seconds)`` of every target's emission, then ``("write", seconds)``.
    timings: tuple[tuple[str, float], ...] = ()
    #: Warnings of passes that ran in a worker process (Note [Late work]).
    warnings: tuple[Diagnostic, ...] = ()
    #: path -> SHA-256 of the bytes of the files a staging helper wrote or found
    #: unchanged: their ``files`` entries have no text (Note [Texts handed over]).
    digests: Mapping[str, str] = attrs.field(factory=dict)
    #: (path, target) of the files kept as OUT holds them (Note [File reuse]).
    kept: tuple[tuple[str, str], ...] = ()

    def format_timings(self) -> str:
        width = max((len(name) for name, _ in self.timings), default=5)
        lines = [f"{name:<{width}}  {seconds:8.4f}" for name, seconds in self.timings]
        total = sum(seconds for _, seconds in self.timings)
        return "\n".join([*lines, f"{'total':<{width}}  {total:8.4f}"])


def compile_to_directory(
    module: Module,
    targets: Sequence[str],
    out_dir: Path,
    *,
    dry_run: bool = False,
    depfile: Path | None = None,
    outputs_list: Path | None = None,
    extra_inputs: Sequence[str] = (),
    jobs: int | None = 1,
    late: LateWork | None = None,
    notify: Callable[[str], None] | None = None,
    before_commit: Callable[[], None] | None = None,
    after_commit: Callable[[CompileResult], None] | None = None,
    profile: ReleaseProfile | None = None,
    reuse: FileReuse | None = None,
    werror: bool = False,
) -> CompileResult:
    """Emit ``targets`` for ``module`` and commit the files to ``out_dir``.

    Everything is emitted (and every error raised) before ``out_dir`` is
    touched.  The depfile lists every output against every input YAML file
    (plus ``extra_inputs``, such as a selection file, and schemac's own
    files, :func:`compiler_files`); the outputs list names
    every output, one ``OUT/path`` a line, for build systems that must know the
    files before they exist.  A dry run writes none of these.

    ``jobs``: with 2 or more (and ``os.fork``), a helper process compares and
    stages each file while the backends emit the next ones, once there are
    enough files for that to pay (:mod:`.output.background`), and the
    ``late`` passes, if any, run in a worker beside the backends that do not
    need them (Note [Late work]); the result is the same, byte for byte.
    With 1, each file is staged in this process as it is emitted.
    None: as many as pay (:func:`effective_jobs`; a module with fewer than
    :data:`SERIAL_BELOW_FUNCTIONS` functions is compiled in one process).

    Unless ``dry_run``, everything from the first staged file to the depfile
    happens under the lock on ``out_dir`` (Note [One writer per OUT]), after
    finishing or discarding what an interrupted compile left there
    (Note [The commit journal]).  ``notify`` receives the one-line messages
    of both (a wait for the lock, a finished commit).  ``before_commit`` and
    ``after_commit`` run under that lock, right after recovery and after the
    depfile (bookkeeping kept in step with OUT, such as a no-op fingerprint).
    ``reuse``: which deferred files OUT still holds (Note [File reuse]; not
    for dry runs, depfiles or outputs lists, which must see every file).
    """
    if dry_run or depfile is not None or outputs_list is not None:
        reuse = None

    def compile_locked(dry: bool) -> CompileResult:
        return _compile_locked(
            module,
            targets,
            out_dir,
            dry,
            depfile,
            outputs_list,
            extra_inputs,
            jobs,
            late,
            profile,
            werror,
            reuse,
        )

    if dry_run:
        return compile_locked(True)
    with output_lock(out_dir, notify):
        message = recover(str(out_dir))
        if message is not None and notify is not None:
            notify(message)
        if before_commit is not None:
            before_commit()
        result = compile_locked(False)
        if after_commit is not None:
            after_commit(result)
        return result


def _compile_locked(
    module: Module,
    targets: Sequence[str],
    out_dir: Path,
    dry_run: bool,
    depfile: Path | None,
    outputs_list: Path | None,
    extra_inputs: Sequence[str],
    jobs: int | None,
    late: LateWork | None,
    profile: ReleaseProfile | None,
    werror: bool = False,
    reuse: FileReuse | None = None,
) -> CompileResult:
    timings: list[tuple[str, float]] = []
    kept: list[tuple[str, str]] = []
    warnings: list[Diagnostic] = []
    jobs = effective_jobs(jobs, module)
    helper: StagerOnDemand | InlineStager | None = None
    if dry_run:
        pass
    elif jobs > 1 and can_fork():
        helper = StagerOnDemand(out_dir)
    else:
        # Staged as emitted: no text waits for the commit (Note [Texts handed over]).
        helper = InlineStager(str(out_dir))
    try:
        files = emit_targets(
            module,
            targets,
            late=late,
            parallel=jobs > 1,
            timings=timings,
            on_file=None if helper is None else (lambda f: helper.add(f.path, f.data)),
            profile=profile,
            warnings=warnings,
            werror=werror,
            reuse=reuse,
            kept=kept,
        )
        if not dry_run:
            sources = [s for s in attrs.astuple(module.sources) if s] + list(extra_inputs)
            check_inputs_kept(str(out_dir), [f.path for f in files], sources)
        start = time.perf_counter()
        staged = None if helper is None else helper.result()
    except BaseException:
        if helper is not None:
            helper.discard()
        raise
    report = commit(
        files,
        out_dir,
        targets=targets,
        dry_run=dry_run,
        staged=staged,
        release=module.release,
        kept=kept,
    )
    timings.append(("write", time.perf_counter() - start))
    digests = {} if staged is None else staged.digests
    result = CompileResult(
        files, report, tuple(timings), tuple(warnings), digests=digests, kept=tuple(kept)
    )
    if dry_run or (depfile is None and outputs_list is None):
        return result
    outputs = [str(out_dir / f.path) for f in files]
    if depfile is not None:
        inputs = [s for s in attrs.astuple(module.sources) if s] + list(extra_inputs)
        if module.host_templates is not None:  # PyTorch's template text spliced into
            inputs += module.host_templates.paths()
        inputs += compiler_files()
        write_if_changed(depfile, depfile_text(outputs, inputs))
    if outputs_list is not None:
        write_if_changed(outputs_list, "".join(f"{path}\n" for path in outputs))
    return result
