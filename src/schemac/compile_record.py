"""Recording a ``schemac compile`` for the next run: the no-op check and target reuse.

The glue between the compile (which knows the module, the registry and the
files it wrote) and :mod:`schemac.rebuild` (which must not import them, so
that the no-op path stays light): :func:`start_recording` before the compile
reads anything, :meth:`Recording.plan_reuse` once the module is loaded
(Note [Target reuse]), :meth:`Recording.finish` after the commit.  Note
[Up-to-date check] in :mod:`schemac.rebuild` says what is recorded and why it
is safe.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import attrs

from schemac.backends.driver import CompileResult
from schemac.backends.output import MANIFEST_NAME, CommitReport
from schemac.backends.registry import (
    SOURCE_KINDS,
    backends_for,
    fragment_unit,
    unit_covers,
    unit_reads,
)
from schemac.ir.module import SourceFiles
from schemac.rebuild.fingerprint import command_run_key
from schemac.rebuild.fragments import (
    FRAGMENTS_NAME,
    TAIL_NAME,
    FragmentPart,
    FragmentWriter,
    Segment,
    Stat,
    StoredFragments,
)
from schemac.rebuild.inputs import InputRecorder
from schemac.rebuild.loaded_parts import PARTS_NAME, LoadedParts
from schemac.rebuild.reuse import (
    Previous,
    current_digests,
    file_intact,
    file_key,
    files_intact,
    read_previous,
    reusable_files,
    slice_key,
    unit_key,
)
from schemac.rebuild.state import STATE_NAME, up_to_date_files, write_state

#: Set to any value to neither use nor write ``OUT/.schemac-state``.
DISABLE_VARIABLE = "SCHEMAC_NO_STATE"


def _covered_paths(unit: str, sources: SourceFiles | None) -> frozenset[str]:
    """The input files whose edits the inputs of a target's deferred files or of a
    fragment unit's pieces cover (Note [File reuse], ``BackendEntry.covers``)."""
    if sources is None:
        return frozenset()
    covered = unit_covers(unit)
    paths = (getattr(sources, kind) for kind in SOURCE_KINDS if kind in covered)
    return frozenset(os.path.abspath(p) for p in paths if p)


def _slice_unread(unit: str, sources: SourceFiles | None) -> frozenset[str]:
    """What a sliced unit's slice key leaves out (Note [Unit slices] in
    ``schemac.backends.reuse``): the files it does not read, and
    ``native_functions.yaml``, whose values it reads are in the slice."""
    unread = _unread_paths(unit, sources)
    if sources is None or not sources.native_functions:
        return unread
    return unread | {os.path.abspath(sources.native_functions)}


def _units_of(target: str) -> tuple[str, ...]:
    """The emit calls of ``target``, one per backend (Note [Unit reuse])."""
    return tuple(fragment_unit(target, entry.name) for entry in backends_for(target))


def _unread_paths(target: str, sources: SourceFiles | None) -> frozenset[str]:
    """The module input files none of ``target``'s backends reads (Note [Target reuse]);
    for a fragment unit (``target/backend``), those that backend does not read."""
    if sources is None:
        return frozenset()
    reads = unit_reads(target)
    paths = {kind: getattr(sources, kind) for kind in SOURCE_KINDS}
    read = {os.path.abspath(p) for kind, p in paths.items() if p and kind in reads}
    return (
        frozenset(os.path.abspath(p) for kind, p in paths.items() if p and kind not in reads) - read
    )


@attrs.frozen
class ChildRecord:
    """What a forked child's record hands its parent (:meth:`Recording.child_handover`)."""

    fragments: FragmentPart | None
    #: The files and directories the child's process read (its copy of the recorder's).
    files: tuple[str, ...] = ()
    directories: tuple[str, ...] = ()
    #: (path, unit, local key, whether grouped, file key or "") of every deferred
    #: file it asked about.
    asked: tuple[tuple[str, str, str, bool, str], ...] = ()
    #: (unit, slice local key, kept) of every sliced unit it asked about.
    slices: tuple[tuple[str, str, bool], ...] = ()


class Recording:
    """One compile being watched: its key, the files it reads, the targets it reuses."""

    def __init__(self, argv: Sequence[str], out_dir: Path) -> None:
        self.out_dir = out_dir
        # Keyed before anything is read: code edited during the run makes a
        # key that the next run, reading the new code, does not match.  (The
        # no-op check's key when it computed one: fingerprint.OneCommand.)
        self.key = command_run_key(argv)
        self.recorder = InputRecorder(out_dir)
        self.recorder.start()
        self._previous: Previous | None = None
        self._digests: dict[str, str] = {}
        self._sources: SourceFiles | None = None
        #: target -> the paths it keeps from the last run: targets none of
        #: whose emit calls runs (Note [Target reuse]).
        self.reused: dict[str, list[str]] = {}
        #: unit -> the paths it keeps, for every unit of those targets.
        self._whole_units: dict[str, list[str]] = {}
        #: unit -> the paths it keeps, for the units of targets that still run
        #: (Note [Unit reuse]): the driver skips them.
        self._kept_units: dict[str, list[str]] = {}
        #: unit -> local key of the slice of each sliced unit this run asked
        #: about, and the units kept so (Note [Unit slices]).
        self._slice_locals: dict[str, str] = {}
        self._sliced: set[str] = set()
        #: path -> (unit, local key, whether the key is a group's) of each
        #: deferred file of this run (Note [File groups]).
        self._locals: dict[str, tuple[str, str, bool]] = {}
        #: target -> its context key against the last run's inputs, as they are now.
        self._contexts: dict[str, str] = {}
        #: path -> the file key :meth:`keep` computed from ``_contexts``.
        self._keys: dict[str, str] = {}
        self._out = str(out_dir)
        #: The last run's fragments (Note [Fragment reuse]), once looked for.
        self._stored: StoredFragments | None = None
        #: This run's, written beside OUT as they come.
        self._writer: FragmentWriter | None = None
        self._inherited: FragmentWriter | None = None
        #: (unit, local key) of the stored fragments this process reused.
        self._reused_fragments: set[tuple[str, str]] = set()
        #: Who made this record: a forked child of -j 2 writes a fragment file of its own.
        self._pid = os.getpid()
        #: The fragment units (Note [Fragment reuse]) this run recorded pieces of.
        self._fragment_units: set[str] = set()
        #: The loaded parts of native_functions.yaml, once asked for.
        self._parts: LoadedParts | None = None

    def part_memo(self) -> LoadedParts:
        """The parts of native_functions.yaml the last run into OUT loaded, and
        this run's (Note [Loaded parts remembered] in :mod:`schemac.frontend.part_memo`)."""
        if self._parts is None:
            self._parts = LoadedParts(self.out_dir, self.key)
        return self._parts

    def holds_state(self) -> bool:
        """Whether OUT holds a state (of any command): a look before the load,
        which :meth:`plan_reuse` reads and checks later."""
        return (self.out_dir / STATE_NAME).is_file()

    @property
    def incremental(self) -> bool:
        """Whether OUT holds a state of this command that :meth:`plan_reuse` can use."""
        return self._previous is not None

    def stop(self) -> None:
        """The compile is over, recorded or not: nothing of it stays beside OUT."""
        self.recorder.stop()
        if self._writer is not None:
            self._writer.discard()

    def plan_reuse(self, targets: Sequence[str], sources: SourceFiles) -> dict[str, list[str]]:
        """The targets whose files the last run left as this one would write them.

        Of the other targets, the emit calls whose files the last run left so
        are :meth:`kept_units` (Note [Unit reuse])."""
        self._sources = sources
        previous = read_previous(str(self.out_dir), lambda: self.key)
        if previous is None:
            return {}
        digests = current_digests(previous.inputs)
        if digests is None:
            return {}
        self._previous, self._digests = previous, digests
        stored = self._store()
        if stored is not None:
            stored.hash_base_soon()  # Note [The base hashed beside the passes]
        for target in targets:
            kept_units = {}
            for unit in _units_of(target):
                key = unit_key(self.key, unit, digests, _unread_paths(unit, sources))
                kept = reusable_files(previous, str(self.out_dir), unit, key)
                if kept is not None:
                    kept_units[unit] = kept
            if kept_units and len(kept_units) == len(_units_of(target)):
                self.reused[target] = [p for paths in kept_units.values() for p in paths]
                self._whole_units.update(kept_units)
            else:
                self._kept_units.update(kept_units)
        return self.reused

    def kept_units(self) -> Mapping[str, Sequence[str]]:
        """:class:`~schemac.backends.reuse.FileReuse`: the emit calls the driver
        need not make (Note [Unit reuse])."""
        return self._kept_units

    def keep(self, unit: str, path: str, local: str) -> bool:
        """:class:`~schemac.backends.reuse.FileReuse`: whether OUT still holds the
        deferred file ``path`` as the last run rendered it for the same key."""
        self._locals[path] = (unit, local, False)
        previous = self._previous
        if previous is None:
            return False
        key = self._keys[path] = file_key(self._file_context(unit), path, local)
        return file_intact(previous, self._out, unit, path, key)

    def keep_group(self, unit: str, paths: Sequence[str], local: str) -> list[bool]:
        """:class:`~schemac.backends.reuse.FileReuse`: :meth:`keep` for the files
        of a group, whose local key covers their paths (Note [File groups]):
        one file key for all of them."""
        self._locals.update(dict.fromkeys(paths, (unit, local, True)))
        previous = self._previous
        if previous is None:
            return [False] * len(paths)
        key = file_key(self._file_context(unit), "", local)
        self._keys.update(dict.fromkeys(paths, key))
        return files_intact(previous, self._out, unit, paths, key)

    def _file_context(self, unit: str) -> str:
        # A file's context is its target's (Note [File reuse]).
        target = unit.partition("/")[0]
        context = self._contexts.get(target)
        if context is None:
            context = self._contexts[target] = self._context(target, self._digests)
        return context

    def keep_slice(self, unit: str, local: str) -> Sequence[str] | None:
        """:class:`~schemac.backends.reuse.FileReuse`: the files of ``unit`` if the
        last run made them from an equal slice in the same context (Note [Unit
        slices] in :mod:`schemac.backends.reuse`)."""
        self._slice_locals[unit] = local
        kept = self._slice_kept(unit, local)
        if kept is not None:
            self._sliced.add(unit)
        return kept

    def slice_unchanged(self, unit: str, local: str) -> bool:
        return self._slice_kept(unit, local) is not None

    def _slice_kept(self, unit: str, local: str) -> Sequence[str] | None:
        previous = self._previous
        if previous is None or unit not in previous.slices:
            return None
        context = unit_key(self.key, unit, self._digests, _slice_unread(unit, self._sources))
        return reusable_files(previous, self._out, unit, slice_key(context, local), sliced=True)

    def fragment(self, unit: str, local: str) -> str | None:
        """:class:`~schemac.backends.reuse.FragmentStore`: the last runs' text for
        ``local`` if it was rendered in the context ``unit`` (``target/backend``,
        keyed on the files that backend reads) has now."""
        stored = self._store()
        if stored is None:
            return None
        context = self._contexts.get(unit)
        if context is None:
            context = self._contexts[unit] = self._context(unit, self._digests)
        found = stored.get(unit, context, local)
        if found is not None:
            self._reused_fragments.add((unit, local))
        return found

    def _store(self) -> StoredFragments | None:
        """The last runs' fragments, if the state lists some (read on first use)."""
        if self._stored is None:
            previous = self._previous
            if previous is None or not previous.fragments:
                return None
            self._stored = StoredFragments(str(self.out_dir), previous.fragments, previous.trust)
        return self._stored

    def remember(self, unit: str, local: str, text: str) -> None:
        self._fragment_units.add(unit)
        if (unit, local) in self._reused_fragments:
            return  # it stays where it is (Note [Fragment segments])
        writer = self._open_writer()
        if writer is not None:
            writer.add(unit, local, text)

    def _open_writer(self) -> FragmentWriter | None:
        """This process's writer: appending to a valid store, else a fresh file
        (always one of its own in a forked child)."""
        writer = self._writer
        if writer is not None and writer.owned():
            return writer
        # The inherited one stays referenced: freed, its buffer would be
        # flushed into the parent's file.
        self._inherited = writer
        stored = self._store() if os.getpid() == self._pid else None
        try:
            if stored is not None and stored.valid:
                writer = FragmentWriter(str(self.out_dir), stored)
            else:
                writer = FragmentWriter(str(self.out_dir))
        except OSError:
            return None  # only a cache
        self._writer = writer
        return writer

    def before_fork(self) -> bool:
        """:class:`~schemac.backends.reuse.FileReuse`: the store read and indexed
        once, in the parent, for both processes of a split."""
        stored = self._store()
        if stored is None:
            return False
        stored.read()
        return True

    def child_handover(self) -> ChildRecord:
        recorder = self.recorder
        files, directories = tuple(sorted(recorder.files)), tuple(sorted(recorder.directories))
        keys = self._keys
        asked = tuple(
            (path, unit, local, grouped, keys.get(path, ""))
            for path, (unit, local, grouped) in self._locals.items()
        )
        slices = tuple(
            (unit, local, unit in self._sliced) for unit, local in self._slice_locals.items()
        )
        return ChildRecord(self._detach_fragments(), files, directories, asked, slices)

    def _detach_fragments(self) -> FragmentPart | None:
        if not self._fragment_units:
            return None
        writer = self._writer
        used = () if self._stored is None else self._stored.used_offsets()
        units = tuple(sorted(self._fragment_units))
        if writer is None or not writer.owned():
            return FragmentPart(None, 0, units, used)
        self._writer = None
        return writer.detach(units, used)

    def adopt_handover(self, token: object | None) -> None:
        if token is None:
            return
        assert isinstance(token, ChildRecord), "a token of child_handover"
        # The child's reads are this compile's: the torch headers the autograd
        # backends check, say, when they emit in the child.
        self.recorder.files.update(token.files)
        self.recorder.directories.update(token.directories)
        # Its answers stand: the same keys, computed from the same record (and
        # each kept file is checked again when the state is written).
        for path, unit, local, grouped, key in token.asked:
            self._locals[path] = (unit, local, grouped)
            if key:
                self._keys[path] = key
        for unit, local, kept in token.slices:
            self._slice_locals[unit] = local
            if kept:
                self._sliced.add(unit)
        part = token.fragments
        if part is None:
            return
        self._fragment_units.update(part.units)
        stored = self._store()
        if stored is not None and part.used:
            stored.mark_used(part.used)
        writer = self._open_writer() if part.path is not None else None
        if writer is not None:
            writer.append_part(part)
        elif part.path is not None:
            with contextlib.suppress(OSError):
                os.unlink(part.path)

    def _context(self, target: str, digests: Mapping[str, str]) -> str:
        unread = _unread_paths(target, self._sources) | _covered_paths(target, self._sources)
        return unit_key(self.key, target, digests, unread)

    def report(self, report: CommitReport) -> CommitReport:
        """``report`` counting the reused targets' files as unchanged, as a full run would."""
        if not self.reused:
            return report
        kept = [p for paths in self.reused.values() for p in paths]
        return attrs.evolve(report, unchanged=tuple(sorted((*report.unchanged, *kept))))

    def finish(
        self,
        result: CompileResult,
        targets: Sequence[str],
        auxiliary: Sequence[Path | None],
        extra_inputs: Sequence[str],
        *,
        warned: bool = False,
    ) -> bool:
        """Write the state for a committed ``result`` of ``targets`` (all of them,
        reused ones included); False if it was not recorded.

        ``warned``: the run printed warnings.  Then no state is left (an older
        one is removed): a no-op or a reused target would not print them again,
        and a warning must show on every run until it is fixed.
        """
        self.recorder.stop()
        if not self.out_dir.is_dir():
            return False
        if self._parts is not None:
            # Whatever else is kept: a part is remembered only if it loaded
            # without a diagnostic, and its key covers all that loading it read.
            self._parts.save()
        if warned:
            (self.out_dir / STATE_NAME).unlink(missing_ok=True)
            (self.out_dir / FRAGMENTS_NAME).unlink(missing_ok=True)
            (self.out_dir / TAIL_NAME).unlink(missing_ok=True)
            return False
        changed = result.report.changed
        if not changed and up_to_date_files(str(self.out_dir), lambda: self.key):
            # The state already describes OUT: an unchanged run touches nothing.
            return True
        try:
            return self._write(result, targets, auxiliary, extra_inputs)
        except OSError:
            # Only a cache: without it the next run is a full one.
            return False

    def _write(
        self,
        result: CompileResult,
        targets: Sequence[str],
        auxiliary: Sequence[Path | None],
        extra_inputs: Sequence[str],
    ) -> bool:
        # The fragments and the loaded parts are read as caches, not as inputs:
        # their bytes are checked (against the state, against their digests), and
        # what they hold never changes an output.
        written = [f.path for f in result.files] + [MANIFEST_NAME, STATE_NAME]
        written += [FRAGMENTS_NAME, TAIL_NAME, PARTS_NAME]
        written += [path for path, _ in result.kept]
        written += [p for paths in self.reused.values() for p in paths]
        inputs = {*self.recorder.read_files(written), *(os.path.abspath(p) for p in extra_inputs)}
        if (self.reused or self._kept_units or self._sliced) and self._previous is not None:
            # What the reused units' backends read last time, they did not read now.
            inputs.update(self._previous.inputs)
        digests = current_digests(inputs)
        if digests is None or any(
            digests[p] != d for p, d in self._digests.items() if p in digests
        ):
            return False  # an input changed while the compile ran
        units = {
            u: unit_key(self.key, u, digests, _unread_paths(u, self._sources))
            for t in targets
            for u in _units_of(t)
        }
        slices = self._slice_keys(digests)
        by_path = {f.path: f for f in result.files}
        contexts = {t: self._context(t, digests) for t in targets}
        keys = self._file_keys(contexts, digests)
        # A reused unit's files keep the keys they had.
        previous = {} if self._previous is None else self._previous.file_keys

        def kept_key(path: str) -> str:
            return keys.get(path) or (previous[path][1] if path in previous else "")

        generated = [
            (f.path, fragment_unit(f.target, f.backend), keys.get(f.path, "")) for f in result.files
        ]
        generated += [(p, u, kept_key(p)) for p, u in result.kept]
        generated += [(p, u, kept_key(p)) for u, paths in self._whole_units.items() for p in paths]
        fragments, base = self._commit_fragments(digests)
        # What this run kept without writing must still be what the last one wrote.
        records = {} if self._previous is None else self._previous.records()
        kept = [p for p, _ in result.kept] + [p for ps in self.reused.values() for p in ps]
        return write_state(
            self.out_dir,
            self.key,
            inputs=inputs,
            directories=self.recorder.listed_directories(),
            generated=generated,
            bookkeeping=[MANIFEST_NAME] if (self.out_dir / MANIFEST_NAME).is_file() else [],
            auxiliary=[os.path.abspath(p) for p in auxiliary if p is not None],
            expected=_expected_bytes(by_path, result.digests),
            units=units,
            unchanged={p: records[p] for p in kept if p in records},
            fragments=fragments,
            fragments_base=base,
            slices=slices,
            # Taken above, those the run started from found equal: hashed once
            # more, an input changed since would be recorded as if the compile
            # had read it.
            input_digests=digests,
            compared=result.compared,
        )

    def _slice_keys(self, digests: Mapping[str, str]) -> dict[str, str]:
        """unit -> slice key of each sliced unit, for the next run (Note [Unit
        slices] in :mod:`schemac.backends.reuse`): over this run's inputs for the
        units that computed their slice; a unit not emitted (its target or its
        unit key unchanged: nothing it reads changed, so neither did its slice)
        keeps the key it had (taken over other inputs than this run's, it is
        only missed)."""
        keys = {
            unit: slice_key(
                unit_key(self.key, unit, digests, _slice_unread(unit, self._sources)), local
            )
            for unit, local in self._slice_locals.items()
        }
        previous = self._previous
        if previous is not None:
            for unit in (*self._whole_units, *self._kept_units):
                found = previous.slices.get(unit)
                if found is not None and unit not in keys:
                    keys[unit] = found
        return keys

    def _commit_fragments(
        self, digests: Mapping[str, str]
    ) -> tuple[tuple[Segment, ...] | None, Stat | None]:
        """The store's segments once this run's are in (Note [Fragment segments]),
        and the stat of its base the state may vouch for (Note [A settled base
        goes unhashed]: one this run checked and did not write).

        Renamed into OUT, when fresh, before the state lists OUT's parent (the
        temporary is there).  A unit's context key is taken over the files the
        last run read (when this run looks fragments up) and over those this
        run read (when it records them): the two sets differ when, say, the
        last run was split across two processes, whose child's reads are not
        recorded.  So the stored segments whose records were valid for this
        run are labelled with this run's context for the next one; the others
        keep their labels (their records may be valid again after the inputs
        change back)."""
        stored = self._store()
        writer, self._writer = self._writer, None
        now: dict[str, str] = {}
        then: dict[str, str] = {}

        def context_now(unit: str) -> str:
            found = now.get(unit)
            if found is None:
                found = now[unit] = self._context(unit, digests)
            return found

        def context_then(unit: str) -> str:
            found = then.get(unit) or self._contexts.get(unit)
            if found is None:
                found = then[unit] = self._context(unit, self._digests)
            return found

        def relabel(segment: Segment) -> Segment:
            contexts = tuple(
                (unit, context_now(unit) if context == context_then(unit) else context)
                for unit, context in segment.contexts
            )
            return attrs.evolve(segment, contexts=contexts)

        if stored is not None:
            # A reused target rendered nothing: its fragments of the last run
            # stay live (same context) for the run that next emits it.
            for segment in stored.segments:
                for unit, context in segment.contexts:
                    if (
                        unit in self._whole_units
                        or unit in self._kept_units
                        or unit in self._sliced
                    ) and context == context_then(unit):
                        stored.carry(unit, context)
        base = None if stored is None else stored.base_stat
        if writer is None:
            return (None if stored is None else tuple(map(relabel, stored.segments))), base
        segments = writer.commit(str(self.out_dir), context_now, relabel)
        return segments, None if writer.wrote_base else base

    def _file_keys(self, contexts: Mapping[str, str], digests: Mapping[str, str]) -> dict[str, str]:
        """path -> file key of each deferred file of the targets of ``contexts``
        (their context keys against ``digests``)."""
        if digests == self._digests and all(
            self._contexts.get(t, c) == c for t, c in contexts.items()
        ):
            # The inputs are those keep() keyed against: its keys stand (7,574
            # digests of torch's -t all not made twice).
            keys = self._keys
        else:
            keys = {}
        found = {}
        for path, (unit, local, grouped) in self._locals.items():
            context = contexts.get(unit.partition("/")[0])
            if context is not None:
                # A group's files share its key, which names their paths.
                found[path] = keys.get(path) or file_key(context, "" if grouped else path, local)
        return found


def _expected_bytes(
    by_path: Mapping[str, object], digests: Mapping[str, str]
) -> Callable[[str], bytes | str | None]:
    """A generated file's bytes, or their digest ("" if unhashed) when a stager took
    the bytes (Note [Texts handed over] in :mod:`schemac.backends.driver`)."""

    def expected(path: str) -> bytes | str | None:
        digest = digests.get(path)
        if digest is not None:
            return digest
        file = by_path.get(path)
        data = getattr(file, "data", None)
        return data if isinstance(data, bytes) else None

    return expected


def start_recording(argv: Sequence[str], out_dir: Path, dry_run: bool) -> Recording | None:
    """A :class:`Recording` of this compile, or None if it must not leave a state."""
    if dry_run or os.environ.get(DISABLE_VARIABLE):
        return None
    return Recording(argv, out_dir)
