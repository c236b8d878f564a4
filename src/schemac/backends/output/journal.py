"""The commit point: one rename that decides whether OUT gets the new tree.

Note [The commit journal]: a compile stages every new or changed file in a
private directory beside OUT (:mod:`.staging`).  When all are staged and
:mod:`.preflight` found nothing in OUT that would stop the moves, it writes
the journal, ``.schemac-journal``: the steps that turn the old tree into the
new one (``remove PATH`` for each stale file, then ``put PATH`` for each
staged file, the manifest last).  Then it renames the staging directory to
``.OUT.schemac-commit``.  That rename is the commit point:

* killed before it, the compile never happened: OUT is the old tree, and the
  next compile removes the abandoned staging directory;
* killed after it, the compile happened: the next compile, before anything
  else (:func:`recover`, under the lock), applies the journal's steps again.

Each step is idempotent, its progress visible on disk, so replaying the
journal from the start after a crash at any instant finishes the commit: a
``put`` whose staged file is gone was done; a ``remove`` whose file is gone
was done.  The file a step replaces or removes is first moved to
``.schemac-old/N`` inside the commit directory (N: the step's index, so
paths and directories never collide there), which makes each step
reversible: when a step fails in this process (a read-only directory,
``EACCES`` from a file system's own rules), the steps done so far are undone
in reverse and OUT is the old tree again.  A file whose bytes did not change
is never in the journal, so it keeps its inode and its mtime.

Atomicity here is against crashes of schemac (``kill -9``, Ctrl-C, an
exception), not against power loss: nothing is ``fsync``-ed, as a build tool's
outputs can always be regenerated.  Readers of OUT during the few
milliseconds of the moves may see a mix; builds run after schemac, not
during it.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import stat
from collections.abc import Iterator, Sequence

import attrs

from schemac.backends.output.files import RESERVED_NAMES, check_output_path
from schemac.backends.output.lock import OutPlaces

JOURNAL_NAME = ".schemac-journal"
_OLD_DIR = ".schemac-old"
_HEADER = "schemac-journal 1"
REMOVE, PUT = "remove", "put"


class CommitError(OSError):
    """The outputs could not be committed; OUT is as it was (or will be finished)."""


@attrs.frozen
class Step:
    """One step of a commit: ``put`` a staged file in place, or ``remove`` a stale one."""

    verb: str
    path: str


def _valid(step: Step) -> bool:
    return step.verb in (REMOVE, PUT) and (
        step.path in RESERVED_NAMES or check_output_path(step.path) is None
    )


def journal_text(steps: Sequence[Step]) -> str:
    return "".join([f"{_HEADER}\n", *(f"{s.verb}\t{s.path}\n" for s in steps)])


def read_journal(commit_dir: str) -> tuple[Step, ...] | None:
    """The steps of a commit directory's journal; None if it has no valid one.

    A journal that does not parse was never completely written, and its
    directory never passed the commit point: it must not be replayed.
    """
    try:
        with open(os.path.join(commit_dir, JOURNAL_NAME), encoding="utf-8") as stream:
            lines = stream.read().splitlines()
    except (OSError, UnicodeDecodeError):
        return None
    if not lines or lines[0] != _HEADER:
        return None
    steps = []
    for line in lines[1:]:
        verb, sep, path = line.partition("\t")
        step = Step(verb, path)
        if not sep or not _valid(step):
            return None
        steps.append(step)
    return tuple(steps)


def switch(out_dir: str, staging: str, steps: Sequence[Step]) -> None:
    """Write the journal into ``staging``, pass the commit point, apply the steps."""
    os.mkdir(os.path.join(staging, _OLD_DIR))
    with open(os.path.join(staging, JOURNAL_NAME), "w", encoding="utf-8") as stream:
        stream.write(journal_text(steps))
    commit_dir = OutPlaces.of(out_dir).commit
    # Ctrl-C or SIGTERM during the moves waits for them (milliseconds), so
    # that an interrupted compile leaves no journal behind; kill -9 cannot
    # wait, and the next run replays it.
    with _interrupts_deferred():
        os.rename(staging, commit_dir)  # the commit point
        apply_journal(out_dir, commit_dir, steps)


@contextlib.contextmanager
def _interrupts_deferred() -> Iterator[None]:
    signals = {signal.SIGINT, signal.SIGTERM}
    try:
        previous = signal.pthread_sigmask(signal.SIG_BLOCK, signals)
    except (AttributeError, OSError, ValueError):  # pragma: no cover - not POSIX
        yield
        return
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def apply_journal(out_dir: str, commit_dir: str, steps: Sequence[Step]) -> None:
    """Apply (or re-apply) every step; on failure undo them and raise :class:`CommitError`."""
    done = 0
    try:
        for index, step in enumerate(steps):
            _forward(out_dir, commit_dir, index, step)
            done = index + 1
    except OSError as error:
        _undo(out_dir, commit_dir, steps, done, error)
    _finish(commit_dir)


def _undo(out_dir: str, commit_dir: str, steps: Sequence[Step], done: int, error: OSError) -> None:
    """Undo steps ``done`` (the one that failed) down to 0, then raise."""
    what = f"cannot write the outputs: {error}"
    try:
        for index in range(min(done, len(steps) - 1), -1, -1):
            _backward(out_dir, commit_dir, index, steps[index])
    except OSError as second:
        raise CommitError(
            f"{what}; undoing the commit failed too ({second}): {commit_dir} is kept and "
            f"the next compile into {out_dir} finishes it"
        ) from error
    _finish(commit_dir)
    raise CommitError(f"{what}; {out_dir} is unchanged") from error


def _finish(commit_dir: str) -> None:
    # The journal goes first: a directory without one is never replayed.
    with contextlib.suppress(FileNotFoundError):
        os.unlink(os.path.join(commit_dir, JOURNAL_NAME))
    shutil.rmtree(commit_dir, ignore_errors=True)


def _is_file_like(path: str) -> bool:
    """Whether ``path`` names a non-directory (a file or a symlink), without following it."""
    try:
        return not stat.S_ISDIR(os.lstat(path).st_mode)
    except (FileNotFoundError, NotADirectoryError):
        return False


def _exists(path: str) -> bool:
    try:
        os.lstat(path)
    except (FileNotFoundError, NotADirectoryError):
        return False
    return True


def _forward(out_dir: str, commit_dir: str, index: int, step: Step) -> None:
    target = os.path.join(out_dir, step.path)
    old = os.path.join(commit_dir, _OLD_DIR, str(index))
    staged = os.path.join(commit_dir, step.path)
    if step.verb == PUT and not _exists(staged):
        return  # done before a crash
    if _is_file_like(target) and not _exists(old):
        os.replace(target, old)
    if step.verb == REMOVE:
        _prune_empty_parents(out_dir, os.path.dirname(target))
        return
    os.makedirs(os.path.dirname(target), exist_ok=True)
    os.replace(staged, target)


def _backward(out_dir: str, commit_dir: str, index: int, step: Step) -> None:
    target = os.path.join(out_dir, step.path)
    old = os.path.join(commit_dir, _OLD_DIR, str(index))
    staged = os.path.join(commit_dir, step.path)
    if step.verb == PUT and not _exists(staged) and _is_file_like(target):
        # Back where it was staged, so that replaying the journal still works.
        os.replace(target, staged)
    if _exists(old):
        os.makedirs(os.path.dirname(target), exist_ok=True)
        os.replace(old, target)


def _prune_empty_parents(out_dir: str, directory: str) -> None:
    """Remove the directories a removal emptied, up to (never including) OUT."""
    root = os.path.abspath(out_dir)
    current = os.path.abspath(directory)
    while current != root and current.startswith(root + os.sep):
        try:
            os.rmdir(current)
        except OSError:
            return
        current = os.path.dirname(current)


def recover(out_dir: str) -> str | None:
    """Finish or discard what an interrupted compile left beside ``out_dir``.

    Call with the lock held (Note [One writer per OUT]), before anything
    reads OUT.  Returns a message for the user if an interrupted commit was
    finished; raises :class:`CommitError` if that failed (OUT is then the old
    tree, and the journal is kept only if undoing failed too).
    """
    places = OutPlaces.of(out_dir)
    message = None
    if os.path.isdir(places.commit) and not os.path.islink(places.commit):
        steps = read_journal(places.commit)
        if steps is None:
            _finish(places.commit)
        else:
            apply_journal(out_dir, places.commit, steps)
            message = (
                f"schemac: finished the interrupted commit of an earlier compile into {out_dir}"
            )
    discard_leftovers(out_dir)
    return message


def discard_leftovers(out_dir: str) -> None:
    """Remove the staging directories, records and fragment files that compiles
    left beside ``out_dir`` (with the lock held: none of them is live, but for
    this process's own, which it is discarding)."""
    places = OutPlaces.of(out_dir)
    for leftover in places.leftover_staging():
        shutil.rmtree(leftover, ignore_errors=True)
    for record in places.leftover_records():
        with contextlib.suppress(OSError):
            os.unlink(record)
