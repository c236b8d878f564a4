"""Writing an output set to the output directory, atomically and minimally.

The rules (docs/backends.md, "Writing files", explains why each exists):

* The output directory is touched only by :func:`commit`, which the driver calls
  after every backend succeeded: a failed compile leaves it as it was.
* Every file whose bytes changed is first written to a staging directory next to
  the output directory (same file system).  Only when all are staged and
  :mod:`.preflight` found nothing in the way does one rename pass the commit
  point, after which the moves are replayed by the next run if this one dies
  (Note [The commit journal] in :mod:`.journal`).  A reader never sees half a
  file, and a crash at any instant leaves the old tree or the new one.
* A file whose bytes are unchanged is not written at all, so its mtime stays and
  the build system does not recompile what depends on it.
* ``OUT/.schemac-manifest`` records every file schemac wrote and the target that
  produced it.  A file listed there for a target this run compiled, but that
  this run did not produce, is stale and removed.  Files schemac never wrote,
  and files of targets this run did not compile, are never touched.
* ``dry_run`` computes the same report and writes nothing.
"""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
from collections.abc import Collection, Iterable, Sequence
from pathlib import Path

import attrs

from schemac.backends.output.files import GeneratedFile, check_output_path, made_by
from schemac.backends.output.journal import PUT, REMOVE, Step, switch
from schemac.backends.output.preflight import check_containment, check_destinations
from schemac.backends.output.staging import (
    CREATED,
    UNCHANGED,
    UPDATED,
    Staged,
    Stager,
    same_bytes,
)

MANIFEST_NAME = ".schemac-manifest"
_MANIFEST_HEADER = (
    "# Files generated here by schemac, one 'target<TAB>path' a line.\n"
    "# schemac removes a listed file when a later run of its target no longer produces it.\n"
)


@attrs.frozen
class CommitReport:
    """What a commit changed (or, for a dry run, would change); paths are sorted."""

    out_dir: str
    created: tuple[str, ...] = ()
    updated: tuple[str, ...] = ()
    unchanged: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    dry_run: bool = False

    @property
    def changed(self) -> bool:
        return bool(self.created or self.updated or self.removed)

    def lines(self) -> tuple[str, ...]:
        """One ``create|update|remove PATH`` line per change, in path order."""
        actions = [
            *(("create", p) for p in self.created),
            *(("update", p) for p in self.updated),
            *(("remove", p) for p in self.removed),
        ]
        return tuple(f"{verb} {path}" for verb, path in sorted(actions, key=lambda a: a[1]))

    def summary(self) -> str:
        verb = "would change" if self.dry_run else "wrote"
        return (
            f"schemac: {verb} {self.out_dir}: {len(self.created)} created, "
            f"{len(self.updated)} updated, {len(self.unchanged)} unchanged, "
            f"{len(self.removed)} stale removed"
        )


def read_manifest(out_dir: Path, known: Collection[str] = frozenset()) -> dict[str, str]:
    """path -> target of the files a previous run recorded; {} if there is none.

    Lines that are not a valid ``target<TAB>path`` entry are ignored rather
    than trusted: the manifest decides what gets deleted.  ``known``: paths
    already checked as output paths (this run's files), not checked again.
    """
    try:
        text = (out_dir / MANIFEST_NAME).read_text(encoding="utf-8")
    except (FileNotFoundError, NotADirectoryError, IsADirectoryError, UnicodeDecodeError):
        # No usable manifest: nothing is known to be ours, so nothing is removed.
        return {}
    entries: dict[str, str] = {}
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        target, sep, path = line.partition("\t")
        if sep and (path in known or check_output_path(path) is None):
            entries[path] = target
    return entries


def manifest_text(files: Iterable[tuple[str, str]], release: str | None = None) -> str:
    """The manifest for ``(path, target)`` pairs, made for ``release`` (a comment line)."""
    body = "".join(f"{target}\t{path}\n" for path, target in sorted(files))
    maker = f"# Made by {made_by(release)}.\n" if release is not None else ""
    return _MANIFEST_HEADER + maker + body


def _same_bytes(path: Path, data: bytes) -> bool:
    return same_bytes(str(path), data)


def stage_files(files: Iterable[GeneratedFile], out_dir: Path) -> Staged:
    """Compare ``files`` with ``out_dir`` and stage the changed ones, in this process."""
    stager = Stager(str(out_dir), first_compile=not out_dir.is_dir())
    try:
        for file in files:
            stager.add(file.path, file.data)
    except BaseException:
        stager.discard()
        raise
    return stager.result()


def _compare(files: Sequence[GeneratedFile], out_dir: Path) -> dict[str, str]:
    """What staging would find, without writing anything (a dry run)."""
    if not out_dir.is_dir():
        return dict.fromkeys((f.path for f in files), CREATED)
    status: dict[str, str] = {}
    for file in files:
        destination = out_dir / file.path
        if _same_bytes(destination, file.data):
            status[file.path] = UNCHANGED
        else:
            status[file.path] = UPDATED if destination.is_file() else CREATED
    return status


def commit(
    files: Sequence[GeneratedFile],
    out_dir: Path,
    *,
    targets: Collection[str],
    dry_run: bool = False,
    staged: Staged | None = None,
    release: str | None = None,
    kept: Collection[tuple[str, str]] = (),
) -> CommitReport:
    """Make ``out_dir`` hold ``files``; ``targets`` are the targets this run compiled.

    ``kept``: (path, target) of files this run produces without rendering them,
    because OUT already holds them as they would be (Note [File reuse] in
    :mod:`schemac.backends.reuse`): they are neither opened nor removed, the
    manifest lists them and the report counts them unchanged.

    ``staged``: ``files`` already compared with ``out_dir`` and the changed
    ones staged (the driver's stagers do it while backends emit); by default
    this function stages them itself.  A staging directory is removed in
    every case, also when the commit fails.
    """
    if dry_run:
        status = _compare(files, out_dir)
    else:
        staged = stage_files(files, out_dir) if staged is None else staged
        status = staged.status
    staging = None if staged is None else staged.staging
    try:
        return _commit_staged(files, out_dir, targets, status, staging, dry_run, release, kept)
    finally:
        if staging is not None:
            shutil.rmtree(staging, ignore_errors=True)


def _commit_staged(
    files: Sequence[GeneratedFile],
    out_dir: Path,
    targets: Collection[str],
    status: dict[str, str],
    staging: str | None,
    dry_run: bool,
    release: str | None = None,
    kept: Collection[tuple[str, str]] = (),
) -> CommitReport:
    produced = {f.path for f in files} | {path for path, _ in kept}
    # This run's paths passed check_output_path when they were added (OutputSet).
    previous = read_manifest(out_dir, produced)
    # A first compile has nothing to compare with: no failing stat per file.
    first_compile = not out_dir.is_dir()
    created = sorted(p for p, s in status.items() if s == CREATED)
    updated = sorted(p for p, s in status.items() if s == UPDATED)
    unchanged = sorted([*(p for p, s in status.items() if s == UNCHANGED), *(p for p, _ in kept)])

    stale = sorted(
        path for path, target in previous.items() if target in targets and path not in produced
    )
    if not dry_run and not first_compile:
        check_containment(str(out_dir), [*produced, *stale], frozenset(stale))
    removed = [p for p in stale if _is_file_like(out_dir / p)]

    # Entries of targets not compiled now are carried over untouched.
    carried = {(p, t) for p, t in previous.items() if t not in targets and p not in produced}
    listed = carried | {(f.path, f.target) for f in files} | set(kept)
    manifest = manifest_text(listed, release).encode("utf-8")
    manifest_changed = not _same_bytes(out_dir / MANIFEST_NAME, manifest)

    report = CommitReport(
        out_dir=str(out_dir),
        created=tuple(created),
        updated=tuple(updated),
        unchanged=tuple(unchanged),
        removed=tuple(removed),
        dry_run=dry_run,
    )
    if dry_run or not (created or updated or removed or manifest_changed):
        # A compile that changes nothing touches nothing, not even OUT's parent.
        return report

    to_move = created + updated
    if manifest_changed:
        to_move.append(MANIFEST_NAME)
    if not first_compile:
        check_destinations(str(out_dir), to_move, frozenset(removed))
    if manifest_changed:
        # The manifest is staged last, into the same directory as the files.
        stager = Stager(str(out_dir), first_compile=True, staging=staging)
        stager.write_extra(MANIFEST_NAME, manifest)
        staging = stager.result().staging
    if staging is None:  # pragma: no cover - a removal always changes the manifest
        raise RuntimeError("a change was found but nothing was staged")
    if first_compile and _move_whole(Path(staging), out_dir):
        return report
    # Stale files go first: a new file may take the place of a directory
    # that only stale files kept alive (``a/b.h`` before, ``a`` now).
    steps = [Step(REMOVE, p) for p in removed] + [Step(PUT, p) for p in to_move]
    switch(str(out_dir), staging, steps)
    return report


def _is_file_like(path: Path) -> bool:
    try:
        return not stat.S_ISDIR(path.lstat().st_mode)
    except (FileNotFoundError, NotADirectoryError):
        return False


def _move_whole(staging: Path, out_dir: Path) -> bool:
    """A first compile: OUT appears, with the whole staged tree, in one rename.

    One rename instead of one per file (thousands), and atomic: before it
    there is no OUT, after it all of OUT.  The staging directory is private
    (0700), so it first takes the mode a plain mkdir would give OUT.  False
    (OUT appeared meanwhile, or the rename is refused) sends the caller to
    the journalled moves.
    """
    mask = os.umask(0)
    os.umask(mask)
    try:
        staging.chmod(0o777 & ~mask)
        os.rename(staging, out_dir)
    except OSError:
        return False
    return True


def _make_escape(path: str) -> str:
    """``path`` as one word of a Makefile rule (spaces, ``#``, ``$`` escaped)."""
    return path.replace("\\", "/").replace("$", "$$").replace("#", "\\#").replace(" ", "\\ ")


def depfile_text(outputs: Iterable[str], inputs: Iterable[str]) -> str:
    """A make-style depfile: every output depends on every input.

    Make, Ninja (1.10 and later) and CMake's ``DEPFILE`` read this form.
    """
    out_words = " \\\n  ".join(_make_escape(p) for p in sorted(outputs))
    in_words = " \\\n  ".join(_make_escape(p) for p in sorted(set(inputs)))
    return f"{out_words}: \\\n  {in_words}\n"


def write_if_changed(path: Path, text: str) -> bool:
    """Write a single auxiliary file (a depfile) atomically if its bytes changed."""
    data = text.encode("utf-8")
    if _same_bytes(path, data):
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return True
