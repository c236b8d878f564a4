"""The names schemac keeps beside an output directory, and the lock on it.

Everything a compile writes outside OUT lives in OUT's parent under names
starting ``.OUT.schemac-`` (for ``-o build/gen``: ``build/.gen.schemac-*``),
so a rename between them and OUT never crosses a file system:

* ``.OUT.schemac-lock``: the lock file (:func:`output_lock`), present only
  while a compile holds it (or after one was killed: harmless, no process
  holds it then);
* ``.OUT.schemac-stage-XXXXXXXX``: a staging directory of a running compile
  (:mod:`.staging`); one left over by a killed compile is removed by the next;
* ``.OUT.schemac-commit``: a staging directory that passed the commit point
  (:mod:`.journal`); the next compile finishes it before doing anything else;
* ``.OUT.schemac-state-XXXXXXXX``: the no-op record being written
  (:mod:`schemac.rebuild.state`), renamed into OUT when complete; one left by
  a killed compile is removed by the next;
* ``.OUT.schemac-fragments-XXXXXXXX``: the fragments a running compile
  records (:mod:`schemac.rebuild.fragments`), renamed into OUT just before
  the state is written; likewise removed when a killed compile left one;
* ``.OUT.schemac-parts-PID``: the loaded parts being saved after the commit
  (:mod:`schemac.rebuild.loaded_parts`), renamed into OUT when complete;
  one left by a compile killed (``kill -9``) while saving is removed by the next.

Note [One writer per OUT]: the lock is an ``flock`` on the lock file, taken
before staging starts and held until the depfile is written.  A second
compile into the same OUT waits for it (saying so on stderr) instead of
interleaving its files with the first one's.  The kernel drops the lock when
the holder dies, even by ``kill -9``, so there is never a stale lock to break
by hand.  The holder unlinks the file before releasing it; a waiter that then
gets the lock on the unlinked file sees that the path no longer names it and
starts over, so two processes never both believe they hold the lock.
"""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Callable, Iterator
from pathlib import Path

import attrs

#: A staging directory made by an earlier schemac (``mkdtemp`` suffix only).
_OLD_STAGING = re.compile(r"[a-z0-9_]{8}")


@attrs.frozen
class OutPlaces:
    """The paths beside one output directory (see the module docstring)."""

    parent: str
    name: str

    @classmethod
    def of(cls, out_dir: Path | str) -> OutPlaces:
        # "-o ." needs the absolute path to have a name and a parent.
        parent, name = os.path.split(os.path.abspath(out_dir))
        return cls(parent, name)

    @property
    def prefix(self) -> str:
        return f".{self.name}.schemac-"

    @property
    def lock(self) -> str:
        return os.path.join(self.parent, f"{self.prefix}lock")

    @property
    def commit(self) -> str:
        return os.path.join(self.parent, f"{self.prefix}commit")

    @property
    def staging_prefix(self) -> str:
        return f"{self.prefix}stage-"

    def _names_beside(self) -> list[str]:
        """The entries of OUT's parent, listed through a descriptor.

        The run's input recorder (:mod:`schemac.rebuild.inputs`) keeps every
        directory listed by path, for the no-op check to list again; this
        listing only looks for schemac's own leftovers beside OUT, and
        recording it made any new sibling of OUT (another tool's build tree)
        turn the next no-op into a full run.  A listing by descriptor is not
        recorded.
        """
        handle = os.open(self.parent, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        try:
            return os.listdir(handle)
        finally:
            os.close(handle)

    def leftover_records(self) -> list[str]:
        """No-op records, fragment files and loaded parts of compiles killed while
        writing them."""
        try:
            names = self._names_beside()
        except OSError:
            return []
        starts = (f"{self.prefix}state-", f"{self.prefix}fragments-", f"{self.prefix}parts-")
        return [
            os.path.join(self.parent, name)
            for name in sorted(names)
            if name.startswith(starts) and os.path.isfile(os.path.join(self.parent, name))
        ]

    def leftover_staging(self) -> list[str]:
        """Staging directories of compiles that died before their commit point."""
        try:
            names = self._names_beside()
        except OSError:
            return []
        found = []
        for name in sorted(names):
            if not name.startswith(self.prefix):
                continue
            rest = name[len(self.prefix) :]
            if rest.startswith("stage-") or _OLD_STAGING.fullmatch(rest):
                path = os.path.join(self.parent, name)
                if os.path.isdir(path) and not os.path.islink(path):
                    found.append(path)
        return found


def _holder(handle: int) -> str:
    """Who holds the lock, as the holder wrote it into the file ('' if unknown)."""
    try:
        text = os.pread(handle, 64, 0).decode("ascii", errors="replace").strip()
    except OSError:
        return ""
    return f" (pid {text})" if text.isdigit() else ""


@contextlib.contextmanager
def output_lock(out_dir: Path, on_wait: Callable[[str], None] | None = None) -> Iterator[None]:
    """Hold the lock on ``out_dir`` for the ``with`` block: Note [One writer per OUT].

    ``on_wait`` is told, once, that the lock is busy before this waits for it.
    Without ``fcntl`` (Windows) there is no lock.
    """
    try:
        import fcntl
    except ImportError:  # pragma: no cover - POSIX everywhere schemac is tested
        yield
        return
    places = OutPlaces.of(out_dir)
    os.makedirs(places.parent, exist_ok=True)
    told = False
    while True:
        handle = os.open(places.lock, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        try:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                if on_wait is not None and not told:
                    on_wait(
                        f"schemac: waiting for another schemac{_holder(handle)} that is "
                        f"writing {out_dir}"
                    )
                    told = True
                fcntl.flock(handle, fcntl.LOCK_EX)
            if _names_the_same_file(places.lock, handle):
                break
        except BaseException:
            os.close(handle)
            raise
        os.close(handle)  # the holder removed the file we waited on: start over
    try:
        os.ftruncate(handle, 0)
        os.pwrite(handle, f"{os.getpid()}\n".encode("ascii"), 0)
        yield
    finally:
        with contextlib.suppress(OSError):
            os.unlink(places.lock)
        os.close(handle)


def _names_the_same_file(path: str, handle: int) -> bool:
    try:
        on_disk = os.stat(path)
    except FileNotFoundError:
        return False
    held = os.fstat(handle)
    return (on_disk.st_dev, on_disk.st_ino) == (held.st_dev, held.st_ino)
