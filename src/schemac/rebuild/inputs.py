"""Which files a compile read: the inputs the no-op check must re-hash.

The YAML files named on the command line are not the whole story: ``--torch``
finds torch's files, a release profile may come from elsewhere, and a backend
may read a hand-written file of the torch it is pointed at.  Rather than ask
every part of schemac to declare what it opens, :class:`InputRecorder` watches
the ``open`` audit events (PEP 578) of the compile and keeps every regular
file opened for reading, except:

* Python code and extension modules (``.py``, ``.pyc``, ``.so``...): imports.
  schemac's own files are covered by the run key's code digest and its
  libraries by their locations (:mod:`.fingerprint`);
* files below the schemac package (templates, grammar: in the code digest) or
  below schemac's cache directory (derived from the code, content-addressed);
* the files the compile wrote or compared in the output directory, and its
  staging directories: outputs, compared by the compile itself (other files
  in OUT are kept: ``-o .`` next to the YAML still records the YAML);
* ``/proc``, ``/sys`` and ``/dev``.

Directory listings (``os.scandir``/``os.listdir``) outside those places are
kept too, so a compile that looks for files learns when one appears; except
listings of Python packages (a directory with ``__init__.py``), which the
import system makes.

An audit hook cannot be removed: one is installed per process and costs a
list test per audit event once no recorder is active.
"""

from __future__ import annotations

import os
import stat
import sys

from schemac.digests import hex_of
from schemac.rebuild.fingerprint import PACKAGE_DIR, cache_root

# Not typing.TYPE_CHECKING: see schemac/__init__.py.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable
    from pathlib import Path

_CODE_SUFFIXES = (".py", ".pyc", ".pyo", ".so", ".pyd", ".pth", ".dylib")
_SYSTEM_ROOTS = ("/proc/", "/sys/", "/dev/")


class InputRecorder:
    """Records the files and directories the process reads while :attr:`active`."""

    def __init__(self, out_dir: Path) -> None:
        out = os.path.abspath(out_dir)
        parent, name = os.path.split(out)
        # OUT's staging directories, next to it (``.OUT.schemac-*``).  Not OUT
        # itself: ``-o .`` beside the YAML must still record the YAML; what
        # the compile wrote there is left out by :meth:`read_files`.
        self._out_prefixes = (os.path.join(parent, f".{name}.schemac-"),)
        self._out = out
        self._skip_prefixes = (PACKAGE_DIR + os.sep, cache_root() + os.sep, *_SYSTEM_ROOTS)
        self.files: set[str] = set()
        self.directories: set[str] = set()
        self.active = False

    def start(self) -> None:
        self.active = True
        _RECORDERS.append(self)
        _install_hook()

    def stop(self) -> None:
        self.active = False
        if self in _RECORDERS:
            _RECORDERS.remove(self)

    def read_files(self, written: Iterable[str] = ()) -> set[str]:
        """The regular files read, except those in OUT named by ``written``
        (paths relative to OUT: what the compile wrote or compared there).

        Audit events do not carry ``dir_fd``: ``shutil.rmtree`` opening
        ``ATen`` inside a staging directory reports a path that, resolved
        against the working directory, names nothing (or a directory).
        """
        # Only the few files read inside OUT are looked up among the ~7,800
        # written ones (joining every written path cost ~4 ms).
        inside = os.path.join(self._out, "")
        outputs = set(written)
        return {
            path
            for path in self.files
            if not (path.startswith(inside) and path[len(inside) :] in outputs)
            and os.path.isfile(path)
        }

    def listed_directories(self) -> set[str]:
        return {path for path in self.directories if os.path.isdir(path)}

    def see(self, event: str, args: tuple[object, ...]) -> None:
        if event == "open":
            path, _mode, flags = args
            if isinstance(flags, int) and flags & os.O_ACCMODE != os.O_RDONLY:
                return
            kept = self._kept(path)
            if kept is not None and not kept.endswith(_CODE_SUFFIXES):
                self.files.add(kept)
        elif event in ("os.scandir", "os.listdir"):
            kept = self._kept(args[0] if args else ".")
            # The import system lists every package directory it searches.
            if kept is not None and not os.path.exists(os.path.join(kept, "__init__.py")):
                self.directories.add(kept)

    def _kept(self, path: object) -> str | None:
        if isinstance(path, bytes):
            path = os.fsdecode(path)
        if not isinstance(path, (str, os.PathLike)):
            return None  # a file descriptor
        absolute = os.path.abspath(os.fspath(path))
        if absolute.startswith(self._out_prefixes) or absolute.startswith(self._skip_prefixes):
            return None
        return absolute


#: The recorders currently recording.  Audit hooks cannot be removed, so one
#: hook is installed per process (on first use) and serves whichever
#: compiles are recording; a process that compiles many times in a row (a
#: test session) does not pile up hooks.
_RECORDERS: list[InputRecorder] = []
_HOOK_INSTALLED: list[bool] = []


def _install_hook() -> None:
    if not _HOOK_INSTALLED:
        sys.addaudithook(_hook)
        _HOOK_INSTALLED.append(True)


def _hook(event: str, args: tuple[object, ...]) -> None:
    if _RECORDERS and (event == "open" or event in ("os.scandir", "os.listdir")):
        for recorder in _RECORDERS:
            recorder.see(event, args)


def file_digest(path: str) -> str | None:
    """The digest (:func:`schemac.digests.hex_of`) of a file's bytes; None if it
    cannot be read (then nothing is up to date)."""
    try:
        # A FIFO or a device put where an input was must not block or run for
        # ever here: it is "not up to date", and the full run refuses it.
        handle = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(handle).st_mode):
            return None
        with os.fdopen(handle, "rb", closefd=False) as stream:
            return hex_of(stream.read())
    except OSError:
        return None
    finally:
        os.close(handle)


def listing_digest(path: str) -> str | None:
    """The digest of a directory's sorted entry names; None if it cannot be listed."""
    try:
        names = sorted(os.listdir(path))
    except OSError:
        return None
    return hex_of("\0".join(names).encode("utf-8", "surrogateescape"))
