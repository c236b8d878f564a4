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
from typing import Any

import attrs

from schemac.backends.cpp_names import check_cpp_names
from schemac.backends.forked import ForkedCall, can_fork
from schemac.backends.late_work import LateWork, run_late_inline, run_late_passes
from schemac.backends.output.commit import CommitReport, commit, depfile_text, write_if_changed
from schemac.backends.output.files import GeneratedFile, OutputError, OutputSet
from schemac.backends.output.journal import discard_leftovers, recover
from schemac.backends.output.lock import output_lock
from schemac.backends.output.preflight import check_inputs_kept
from schemac.backends.output.staging import InlineStager, Staged, discard_staged, merge_staged
from schemac.backends.registry import EmitOptions, RunMemo, fragment_unit
from schemac.backends.reuse import (
    Blind,
    Deferred,
    DeferredGroup,
    FileReuse,
    Fingerprints,
    Fragments,
    check_render,
    check_slice,
)
from schemac.backends.split import (
    BEFORE_UNITS,
    Failure,
    ShareResult,
    SplitPlan,
    Unit,
    dealt,
    emission_units,
    following,
    plan_split,
    replay,
)
from schemac.diagnostics import NO_SPAN, Diagnostic, SchemacError
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
    stage_for: str | InlineStager | None = None,
    staged_apart: list[Staged] | None = None,
) -> tuple[GeneratedFile, ...]:
    """Every file the ``targets`` produce for ``module``, sorted by path.

    ``reuse``: which deferred files OUT still holds (Note [File reuse]); those
    are left out of the result and their (path, unit) appended to ``kept``
    (the unit is ``target/backend``, :func:`~.registry.fragment_unit`).
    The emit calls ``reuse`` names (:meth:`~.reuse.FileReuse.kept_units`) are
    not made: OUT holds their files as the last run wrote them (Note [Unit
    reuse]), and each of their paths is kept.

    Raises :class:`~schemac.diagnostics.InputError` if a YAML name cannot be a
    C++ name (:mod:`.cpp_names`), :class:`~schemac.backends.output.OutputError`
    for bad or duplicate paths, and whatever
    :class:`~schemac.diagnostics.SchemacError` a backend raises for input it
    cannot express.  ``late``: passes still to run and the backends that need
    them (Note [Late work]).  With ``parallel`` (and ``os.fork``) the emit
    calls are shared with a forked child (Note [Split emission]): the child
    stages its files for ``stage_for`` (an output directory, or the stager
    to use: :meth:`~.output.staging.InlineStager.sibling`) and its staging
    outcome is appended to ``staged_apart``; without ``stage_for`` it sends
    its texts back.
    ``timings``, if given, receives ``(target, seconds)``; ``on_file``, if
    given, sees each file made in this process as soon as its path was
    accepted, and may return the paths of files whose bytes it now holds:
    those come back without their text (Note [Texts handed over]).
    ``profile``: the target release's (the reference release's when not
    given).  ``warnings``, if given, receives what the backends warned about
    (``EmitOptions.finish``; errors with ``werror``) and what the late
    passes warned about in the child (in one process they go to the passes'
    own context).
    """
    profile = reference_profile() if profile is None else profile
    units = emission_units(targets)
    here = _Emission(OutputSet(), on_file, reuse, profile, werror)
    if reuse is not None:
        units = here.keep_units(units, reuse.kept_units())
    plan = plan_split(units, late) if parallel and can_fork() else None
    if plan is None or not plan.late:
        if late is not None and here.late_facts_needed(module, units, late):
            module = run_late_inline(module, late, timings)
        elif late is not None:
            here.late_skipped = late.backends  # Note [Late passes skipped]
        # The names every backend prints (in the child when it runs the late passes).
        check_cpp_names(module)
    if plan is None:
        here.emit_all(module, units, after=_following(units))
    else:
        _emit_split(module, plan, late, here, stage_for, staged_apart)
    if timings is not None:
        timings.extend(here.timings)
    if warnings is not None:
        warnings.extend(w for _, w in sorted(here.warnings, key=lambda pw: pw[0]))
    if kept is not None:
        kept.extend(here.kept)
    if not here.kept:
        return here.output.files()
    placeholders = {path for path, _ in here.kept}
    return tuple(f for f in here.output.files() if f.path not in placeholders)


def _emit_split(
    module: Module,
    plan: SplitPlan,
    late: LateWork | None,
    here: _Emission,
    stage_for: str | InlineStager | None,
    staged_apart: list[Staged] | None,
) -> None:
    """Note [Split emission]: the child forked, the units shared, then both met.

    Note [Digests shared with the child]
    ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
    Both processes key what they emit by the same functions and resolutions
    (Note [File reuse]) and look fragments up in the same store.  Each used
    to do both on its own: the child's :class:`Fingerprints` started empty,
    and its copy of the record read and indexed the store again.  So before
    the fork the parent reads the store (``FileReuse.before_fork``) and
    encodes every function and resolution, and the child keys with its copy
    of the parent's :class:`Fingerprints`.  The memo is by ``id``, which
    holds across a fork for the objects the parent pinned (the child's
    address space is a copy: the same id is the same object, and a pinned
    one is never freed, so never reused); a value the child makes itself
    (the late passes' tables, say) is encoded there as before.  The work is
    done once instead of twice (~0.1 s of CPU on torch's files); the serial
    part grows by what each share loses, so on two idle cores the wall time
    stays about the same, and on a busy machine it falls with the CPU.

    Only when the last run left a store (an edit, not a first compile): the
    remembered digests are ~1 MiB more in both processes from the fork on,
    which put a cold ``-t python`` above torchgen's peak (57.4 -> 58.5 MiB),
    while a first compile has no fragment to find with them.
    """
    mine, theirs, close_queue = dealt(plan)
    if here.reuse is not None and here.reuse.before_fork():
        # Note [Digests shared with the child]: every share keys what it emits
        # by the functions and their resolutions, and looks its fragments up.
        here.fingerprints.remember_all(module.functions)
        here.fingerprints.remember_all(r for _, r in module.resolutions.items_)
    child = ForkedCall(
        lambda: _child_share(module, plan, theirs, late, here, stage_for),
        "the second share of the backends",
    )
    try:
        failure = here.emit_all(module, mine, split=True, after=following(plan))
    except BaseException:
        child.discard()
        _sweep_after_child(stage_for)
        raise
    finally:
        close_queue()
    try:
        result = child.result()
    except BaseException:  # it crashed, or this process is interrupted
        child.discard()
        _sweep_after_child(stage_for)
        raise
    failures = [f for f in (failure, result.failure) if f is not None]
    if failures:
        discard_staged(result.staged)
        if here.reuse is not None:  # the record, discarded with the run, removes them
            here.reuse.adopt_handover(result.handover)
        raise min(failures, key=lambda f: f.position).error()
    if result.staged is not None and staged_apart is not None:
        staged_apart.append(result.staged)
    for rank, file in result.files:
        if here.output.add(file, rank) and here.on_file is not None and result.staged is None:
            _forget(here.output, here.on_file(file))
    here.kept.extend(result.kept)
    replay(result, here.reuse)
    here.timings.extend(result.timings)
    here.warnings.extend(result.warnings)


def _following(units: Sequence[Unit]) -> Callable[[Unit], Sequence[Unit]]:
    """What comes after each of ``units`` in a run in order."""
    position = {unit: index for index, unit in enumerate(units)}
    return lambda unit: units[position[unit] + 1 :]


def _memo_reads(later: Sequence[Unit]) -> set[str] | None:
    """The memo values the units of ``later`` read; None: not known (any).

    Note [Memo values dropped after their last reader]
    ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
    A value of the run's memo lives until this process's last unit
    (Note [Views dropped with the run]), but may have its last reader
    earlier: the plan index of ``-t headers`` (~3 MiB of registration
    plans) is read by the aggregate headers only, and the per-operator
    headers that follow them in one process peaked with it still alive
    (71 -> 68 MiB, -j 1).  A backend entry that names the memo values its
    emit call reads (``BackendEntry.memo_reads``) lets the driver drop,
    after each unit, every value that no unit this process may still emit
    reads; while one of those names none (not known), nothing is dropped.
    The memo is a cache of pure functions of the module: a value dropped
    too early would be made again, the output is the same either way.

    The memo is also told, before each unit, what the units after it read
    (``RunMemo.expect_later``), so that an emit call can let go of a value
    it has finished with before its own end (``RunMemo.done_with``: the
    aggregate headers drop the plan index after their per-key files, before
    ``RedispatchFunctions.h``, the peak of the process that emits them), or
    not keep at all what no later unit reads (``RunMemo.read_later``: the
    per-operator headers' native signature views, which only the
    registrations read again).
    """
    needed: set[str] = set()
    for unit in later:
        reads = unit.backend.memo_reads
        if reads is None:
            return None
        needed.update(reads)
    return needed


def _sweep_after_child(stage_for: str | InlineStager | None) -> None:
    """The child was killed or died: what it left beside OUT goes (its staging
    directory, its file of fragments).  The compile is failing; the caller
    discards this process's own, which may go here first."""
    if stage_for is not None:
        discard_leftovers(stage_for if isinstance(stage_for, str) else stage_for.out_dir)


def _child_share(
    module: Module,
    plan: SplitPlan,
    units: Iterable[Unit],
    late: LateWork | None,
    parent: _Emission,
    stage_for: str | InlineStager | None,
) -> ShareResult:
    """The child's side: the late work if the plan gives it, then its units."""
    stager = InlineStager(stage_for) if isinstance(stage_for, str) else stage_for
    reuse = parent.reuse  # the child's copy: child_handover gives back what it learns
    on_file = None if stager is None else (lambda f: stager.add_text(f.path, f.text))
    there = _Emission(
        OutputSet(),
        on_file,
        reuse,
        parent.profile,
        parent.werror,
        keep_all=True,
        fingerprints=parent.fingerprints,
    )
    try:
        if plan.late and late is not None:
            try:
                if there.late_facts_needed(module, plan.child_first, late):
                    module, pass_timings, late_warnings = run_late_passes(module, late)
                    there.timings.extend((f"{name} (split)", s) for name, s in pass_timings)
                    there.warnings.extend((BEFORE_UNITS, w) for w in late_warnings)
                else:
                    there.late_skipped = late.backends  # Note [Late passes skipped]
                check_cpp_names(module)
            except SchemacError as error:
                return ShareResult(failure=Failure(BEFORE_UNITS, type(error), error.diagnostics))
        failure = there.emit_all(
            module, units, suffix=" (split)", split=True, after=following(plan)
        )
        if failure is not None:
            if stager is not None:
                stager.discard()
            return ShareResult(failure=failure, handover=_detached(reuse))
        staged = None if stager is None else stager.result()
    except BaseException:
        if stager is not None:
            stager.discard()
        raise
    return ShareResult(
        files=tuple(there.made),
        staged=staged,
        kept=tuple(there.kept),
        handover=_detached(reuse),
        timings=tuple(there.timings),
        warnings=tuple(there.warnings),
    )


def _detached(reuse: FileReuse | None) -> object | None:
    return None if reuse is None else reuse.child_handover()


class _Emission:
    """Where the files of the emit calls run in one process go."""

    def __init__(
        self,
        output: OutputSet,
        on_file: Callable[[GeneratedFile], Iterable[str] | None] | None,
        reuse: FileReuse | None,
        profile: ReleaseProfile,
        werror: bool,
        *,
        keep_all: bool = False,
        fingerprints: Fingerprints | None = None,
    ) -> None:
        self.output = output
        self.on_file = on_file
        self.reuse = reuse
        self.profile = profile
        self.werror = werror
        #: (path, unit) of each file kept as OUT holds it.
        self.kept: list[tuple[str, str]] = []
        self.timings: list[tuple[str, float]] = []
        #: (unit position, warning): logged in the order of a run in one process.
        self.warnings: list[tuple[int, Diagnostic]] = []
        #: With ``keep_all`` (the child), every stamped file in emission order,
        #: accepted or not: the parent's output set judges them.
        self.made: list[tuple[int, GeneratedFile]] = []
        self._keep_all = keep_all
        # One per run, shared by deferred files and every target's fragments:
        # one module, so each function is digested once (a few thousand
        # remembered digests; the headers, registrations and declarations
        # all read the same functions).  A forked child's are its copy of the
        # parent's (Note [Digests shared with the child]).
        self.fingerprints = Fingerprints() if fingerprints is None else fingerprints
        self._memo = RunMemo()  # one module, one run: see RunMemo
        #: The backends whose late facts were not made (Note [Late passes skipped]):
        #: each of their units must be kept.
        self.late_skipped: frozenset[str] = frozenset()
        #: The render functions of deferred files already checked (check_render).
        self._checked: set[Callable[[Any, Any], object]] = set()
        self._units: dict[tuple[str, str], str] = {}

    def keep_units(
        self, units: Sequence[Unit], reused: Mapping[str, Sequence[str]]
    ) -> tuple[Unit, ...]:
        """``units`` but those ``reused`` names, whose files are kept instead: added
        with no text, so that their paths are checked as in a cold run."""
        left = []
        for unit in units:
            name = fragment_unit(unit.target, unit.backend.name)
            paths = reused.get(name)
            if paths is None:
                left.append(unit)
                continue
            for path in paths:
                placeholder = GeneratedFile(path, "", unit.target, backend=unit.backend.name)
                if self.output.add(placeholder, unit.position):
                    self.kept.append((path, name))
        return tuple(left)

    def emit_all(
        self,
        module: Module,
        units: Iterable[Unit],
        suffix: str = "",
        *,
        split: bool = False,
        after: Callable[[Unit], Sequence[Unit]] | None = None,
    ) -> Failure | None:
        """Emit ``units`` in order.  In a ``split``, the first diagnosed error is
        returned with its unit's position instead of raised (Note [Split emission]).
        ``after(unit)``: every unit this process may emit after ``unit`` (None:
        not known), whose readers keep the run's memo values alive."""
        spent: dict[str, float] = {}
        try:
            for unit in units:
                start = time.perf_counter()
                later = None if after is None else _memo_reads(after(unit))
                self._memo.expect_later(later)
                try:
                    self._emit(module, unit)
                except SchemacError as error:
                    if not split:
                        raise
                    return Failure(unit.position, type(error), error.diagnostics)
                if later is not None:
                    self._memo.keep_only(later)
                spent[unit.target] = spent.get(unit.target, 0.0) + time.perf_counter() - start
        finally:
            self.timings.extend((target + suffix, seconds) for target, seconds in spent.items())
            self._drop_views()
        return None

    def _drop_views(self) -> None:
        """Let go of the run's views and keys once this process's last unit is emitted.

        Note [Views dropped with the run]
        ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
        The memo (the ATen catalog, the view table, the plan index) and the
        fingerprints' remembered encodings are ~10 MiB of torch's ``-t
        headers``, and nothing reads them after the last emit call of this
        process.  The parent then waits for the child's files and commits, the
        child pickles its share: both allocate several MiB more, at this
        process's peak.  Dropped here, they are freed by reference counting
        (a compile runs with the cyclic collector off, so the views must hold
        no reference cycle: see ``Catalog.by_name``) and those later
        allocations reuse their memory instead of growing the heap.  Called
        once per process: :meth:`emit_all` is the emission's only pass.
        """
        self._memo = RunMemo()
        self.fingerprints.release()
        self.fingerprints = Fingerprints()

    def _options(self, unit: Unit, log: list[Diagnostic]) -> EmitOptions:
        return EmitOptions(
            target=unit.target,
            memo=self._memo,
            profile=self.profile,
            werror=self.werror,
            warnings=log,
            fragments=Fragments(
                self.reuse, fragment_unit(unit.target, unit.backend.name), self.fingerprints
            ),
        )

    def late_facts_needed(self, module: Module, units: Sequence[Unit], late: LateWork) -> bool:
        """Whether a unit of ``units`` that reads the late passes' facts may be emitted.

        Note [Late passes skipped]
        ~~~~~~~~~~~~~~~~~~~~~~~~~~
        After an edit of a kernel name or a default value, every unit that reads
        the autograd table is kept by its slice (Note [Keys blind to an aspect] in
        :mod:`schemac.ir.slots`), yet ``match-derivatives`` ran first (~0.15 s of
        the child's CPU on torch's files), only to make the table none of them
        reads.  The slices of those units are the same before the late passes as
        after them (``BackendEntry.slice_before_late``: the module's fields leave
        the table out, which the functions and derivatives.yaml decide), so they
        are asked first, without recording anything, where the late passes would
        run (the split's child, which also checks the C++ names there as before);
        when each would be kept, the late passes are not run and the units are
        emitted (kept) with the module as it is.  Their diagnostics are the last
        run's: a run with a warning keeps no state, and what the pass reads of
        the functions that the slices do not show (kernel names, default values)
        decides none of its diagnostics: it matches entries to functions by name
        and signature (the slices hold which functions share one:
        ``slices._signature_classes``), and the texts were compared when
        derivatives.yaml was loaded."""
        reuse = self.reuse
        if reuse is None:
            return True
        for unit in units:
            if unit.backend.name not in late.backends:
                continue
            if not unit.backend.slice_before_late:
                return True
            name, local = self._slice_local(module, unit, self._options(unit, []))
            if not reuse.slice_unchanged(name, local):
                return True
        return False

    def _emit(self, module: Module, unit: Unit) -> None:
        log: list[Diagnostic] = []
        options = self._options(unit, log)
        if (
            self.reuse is not None
            and unit.backend.sliced
            and self._sliced_away(module, unit, options)
        ):
            return
        if unit.backend.name in self.late_skipped:
            # Note [Late passes skipped]: it was to be kept, and OUT changed since.
            raise OutputError(
                [
                    Diagnostic(
                        NO_SPAN,
                        f"{fragment_unit(unit.target, unit.backend.name)}: files in the output"
                        " directory changed while schemac ran",
                        "run the compile again",
                    )
                ]
            )
        try:
            for file in unit.backend.load().emit(module, options):
                self.add(unit.backend.name, unit.target, file, unit.position)
                # Its text is staged now: not kept while the next file renders.
                del file
        finally:
            self.warnings.extend((unit.position, w) for w in log)

    def _sliced_away(self, module: Module, unit: Unit, options: EmitOptions) -> bool:
        """Whether OUT holds ``unit``'s files as made from an equal slice (Note
        [Unit slices] in :mod:`.reuse`); then they are kept and the call is not made."""
        reuse = self.reuse
        if reuse is None or not unit.backend.sliced:
            return False
        name, local = self._slice_local(module, unit, options)
        paths = reuse.keep_slice(name, local)
        if paths is None:
            return False
        for path in paths:
            self._keep(
                GeneratedFile(path, "", unit.target, backend=unit.backend.name), name, unit.position
            )
        return True

    def _slice_local(self, module: Module, unit: Unit, options: EmitOptions) -> tuple[str, str]:
        """The unit's name and the local key of its slice (Note [Unit slices])."""
        slicer = unit.backend.load_slice()
        assert slicer is not None, "a unit with a slice"
        name = self._unit_name(unit.target, unit.backend.name)
        if slicer not in self._checked:
            check_slice(slicer, name)
            self._checked.add(slicer)
        sliced = slicer(module, options)
        if unit.backend.blind_to:
            sliced = Blind(unit.backend.blind_to, sliced)
        return name, self.fingerprints.key(["\x01slice", f"{len(name)}:{name}"], slicer, sliced)

    def _unit_name(self, target: str, backend: str) -> str:
        unit = self._units.get((target, backend))
        if unit is None:
            # One string per unit, not per file: the reuse record keeps
            # it beside every deferred file's key (7,600 in -t headers).
            unit = self._units[target, backend] = fragment_unit(target, backend)
        return unit

    def _keep(self, placeholder: GeneratedFile, unit: str, rank: int) -> None:
        """A file OUT holds as this run would write it: added with no text, so
        that paths are checked as in a cold run."""
        if self.output.add(placeholder, rank):
            self.kept.append((placeholder.path, unit))
        if self._keep_all:
            self.made.append((rank, placeholder))

    def add(
        self,
        backend: str,
        target: str,
        file: GeneratedFile | Deferred | DeferredGroup,
        rank: int = 0,
    ) -> None:
        """``rank``: the position of the emit call that made ``file`` (:meth:`OutputSet.add`)."""
        if isinstance(file, DeferredGroup):
            self._add_group(backend, target, file, rank)
            return
        if isinstance(file, Deferred):
            if file.render not in self._checked:
                # Once per render function, not per file (~7,600 of torch's headers).
                check_render(file)
                self._checked.add(file.render)
            reuse = self.reuse
            unit = self._unit_name(target, backend)
            if reuse is not None and reuse.keep(
                unit, file.path, self.fingerprints.local_key(backend, file)
            ):
                self._keep(GeneratedFile(file.path, "", target, file.span, backend), unit, rank)
                return
            file = file.made()
        self._stamp(file, target, backend, rank)

    def _add_group(self, backend: str, target: str, group: DeferredGroup, rank: int) -> None:
        """Note [File groups]: one key for the group's files, each kept or rendered."""
        checked = self._checked
        for index, render in enumerate(group.renders):
            if render not in checked:
                check_render(group.file(index))
                checked.add(render)
        reuse = self.reuse
        if reuse is None:
            for file in group.files:
                self._stamp(file.made(), target, backend, rank)
            return
        unit = self._unit_name(target, backend)
        paths = group.paths
        kept = reuse.keep_group(unit, paths, self.fingerprints.group_key(backend, group))
        span, add, listed = group.span, self.output.add, self.kept
        made = self.made if self._keep_all else None
        for index, keep in enumerate(kept):
            if not keep:
                self._stamp(group.file(index).made(), target, backend, rank)
                continue
            # _keep, inline: a call less for each of the thousands of files kept.
            path = paths[index]
            placeholder = GeneratedFile(path, "", target, span, backend)
            if add(placeholder, rank):
                listed.append((path, unit))
            if made is not None:
                made.append((rank, placeholder))

    def _stamp(self, file: GeneratedFile, target: str, backend: str, rank: int) -> None:
        # Direct construction: attrs.evolve introspects the fields per call.
        stamped = GeneratedFile(file.path, file.text, target, file.span, backend)
        accepted = self.output.add(stamped, rank)
        if accepted and self.on_file is not None:
            handed = self.on_file(stamped)
            if self._keep_all and handed:
                stamped = GeneratedFile(file.path, "", target, file.span, backend)
            _forget(self.output, handed)
        if self._keep_all:
            self.made.append((rank, stamped))


#: Functions below which a compile whose ``jobs`` was not given runs in one
#: process.  The second process of a split (Note [Split emission]) costs its
#: fork and the copy-on-write faults of the pages it touches, and pays back
#: only through emission that a small module does not have: an empty ``-t all``
#: spent 0.1 s more CPU and wall time with ``-j 2`` than with ``-j 1``.
#: torch's files have ~2,600 functions; an extension library a few dozen.
SERIAL_BELOW_FUNCTIONS = 256


def effective_jobs(jobs: int | None, module: Module) -> int:
    """``jobs`` if given; else 2 on a machine with 2 cores or more, unless
    ``module`` is too small for a second process to pay."""
    if jobs is not None:
        return jobs
    if len(module.functions) < SERIAL_BELOW_FUNCTIONS:
        return 1
    return min(2, os.cpu_count() or 1)


def _forget(output: OutputSet, handed: Iterable[str] | None) -> None:
    """Note [Texts handed over]: :class:`~.output.staging.InlineStager` compares
    and stages each file as it arrives (in each process of a split ``-j 2``).
    What the commit needs of a file after that is its path and target, and
    the no-op record its digest, which the stager gives back
    (:attr:`~.output.staging.Staged.digests`).  Keeping the texts until the
    commit was the largest part of the peak memory of a compile (20 MiB of
    ``-t headers``' ~100), so they are dropped as soon as a stager has them."""
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
    #: Warnings of the backends, and of late passes run in the child (Note [Split emission]).
    warnings: tuple[Diagnostic, ...] = ()
    #: path -> SHA-256 of the bytes of the files the stagers wrote or found
    #: unchanged: their ``files`` entries have no text (Note [Texts handed over]).
    digests: Mapping[str, str] = attrs.field(factory=dict)
    #: path -> the stat of each file the stagers found unchanged, when they
    #: compared it (``Staged.compared``).
    compared: Mapping[str, tuple[int, int, int, int]] = attrs.field(factory=dict)
    #: (path, unit) of the files kept as OUT holds them (Note [File reuse],
    #: Note [Unit reuse]); the unit is ``target/backend``.
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

    ``jobs``: with 2 or more (and ``os.fork``), the emit calls are shared
    with a forked child, which runs the ``late`` passes first if some
    backends need them (Note [Split emission]); the result is the same, byte
    for byte.  Each process stages its files as they are emitted.
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
    # Staged as emitted: no text waits for the commit (Note [Texts handed over]).
    helper = None if dry_run else InlineStager(str(out_dir))
    apart: list[Staged] = []
    try:
        files = emit_targets(
            module,
            targets,
            late=late,
            parallel=jobs > 1,
            timings=timings,
            on_file=None if helper is None else (lambda f: helper.add_text(f.path, f.text)),
            profile=profile,
            warnings=warnings,
            werror=werror,
            reuse=reuse,
            kept=kept,
            # A first compile's child stages into this process's directory.
            stage_for=None if helper is None else helper.sibling() if jobs > 1 else None,
            staged_apart=apart,
        )
        if not dry_run:
            sources = [s for s in attrs.astuple(module.sources) if s] + list(extra_inputs)
            check_inputs_kept(str(out_dir), [f.path for f in files], sources)
        start = time.perf_counter()
        staged = None if helper is None else helper.result()
        for other in apart:
            assert staged is not None  # a child stages only when this process does
            staged = merge_staged(staged, other)
    except BaseException:
        if helper is not None:
            helper.discard()
        for other in apart:
            discard_staged(other)
        raise
    report = commit(
        files,
        out_dir,
        targets=targets,
        dry_run=dry_run,
        staged=staged,
        release=module.release,
        # The manifest names each file's target (kept: path and unit).
        kept=[(path, unit.partition("/")[0]) for path, unit in kept],
    )
    timings.append(("write", time.perf_counter() - start))
    digests = {} if staged is None else staged.digests
    result = CompileResult(
        files,
        report,
        tuple(timings),
        tuple(warnings),
        digests=digests,
        compared={} if staged is None else staged.compared,
        kept=tuple(kept),
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
