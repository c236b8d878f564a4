"""What must hold in OUT before a commit may start: checked, never assumed.

A commit that fails half way is undone (Note [The commit journal]), but the
failures one can see coming are refused before the first file moves, with
the path that is in the way named:

* **Containment.** schemac writes only through real directories below OUT.
  A symbolic link inside OUT, on the way to an output or in place of one, is
  refused (OUT itself may be a link: that is the path the user chose).  So a
  link ``OUT/ATen/ops -> /elsewhere`` can never make a compile write, or
  remove, a file outside OUT.
* **Shape.** A file where a directory must go (``OUT/python`` a file, while
  ``python/x.cpp`` is an output) or a directory where a file must go is
  refused, unless it is a stale output this commit removes anyway.
* **Permissions.** Every directory whose entries change must be writable.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Collection, Iterable

from schemac.backends.output.journal import CommitError


def _directories(paths: Iterable[str]) -> set[str]:
    """Every directory (relative, '' for OUT) holding one of ``paths``, with its ancestors."""
    found: set[str] = set()
    for path in paths:
        directory = path.rpartition("/")[0]
        while directory not in found:
            found.add(directory)
            if not directory:
                break
            directory = directory.rpartition("/")[0]
    return found


def _lstat(path: str) -> os.stat_result | None:
    try:
        return os.lstat(path)
    except (FileNotFoundError, NotADirectoryError):
        return None


def check_containment(out_dir: str, paths: Iterable[str], removing: Collection[str]) -> None:
    """Refuse a symlink or a file on the way from ``out_dir`` to any of ``paths``.

    Run on every compile, not only on those that change something: a
    staging comparison made through a link read files outside OUT, and its
    "unchanged" must not stand.
    """
    problems = []
    for directory in sorted(_directories(paths)):
        if not directory:
            continue
        full = os.path.join(out_dir, directory)
        info = _lstat(full)
        if info is None or stat.S_ISDIR(info.st_mode):
            continue
        if stat.S_ISLNK(info.st_mode):
            problems.append(
                f"{full} is a symbolic link; schemac writes only through real directories"
                " inside the output directory (remove the link, or choose another -o)"
            )
        elif directory not in removing:
            problems.append(f"{full} is a file where a directory of outputs must go")
    _raise(problems)


def check_destinations(out_dir: str, puts: Iterable[str], removing: Collection[str]) -> None:
    """Refuse what would stop a ``put`` of any of ``puts`` or a removal of ``removing``."""
    problems = []
    changed_dirs: set[str] = set()
    for path in puts:
        full = os.path.join(out_dir, path)
        changed_dirs.add(path.rpartition("/")[0])
        info = _lstat(full)
        if info is None:
            continue
        if stat.S_ISLNK(info.st_mode):
            problems.append(
                f"{full} is a symbolic link where an output file goes; schemac does not"
                " write through links inside the output directory"
            )
        elif stat.S_ISDIR(info.st_mode) and not _only_removed(out_dir, path, removing):
            problems.append(f"{full} is a directory where an output file must go")
    changed_dirs.update(path.rpartition("/")[0] for path in removing)
    for directory in sorted(changed_dirs):
        writable = _nearest_existing(out_dir, directory)
        if writable is not None and not os.access(writable, os.W_OK | os.X_OK):
            problems.append(f"{writable} is not writable (Permission denied)")
    _raise(problems)


def _nearest_existing(out_dir: str, directory: str) -> str | None:
    """The directory itself, or the closest ancestor that exists (None: not even OUT)."""
    while True:
        full = os.path.join(out_dir, directory) if directory else out_dir
        info = _lstat(full)
        if info is not None:
            return full if stat.S_ISDIR(info.st_mode) else None
        if not directory:
            return None
        directory = directory.rpartition("/")[0]


def _only_removed(out_dir: str, directory: str, removing: Collection[str]) -> bool:
    """Whether every file below ``directory`` is a stale output removed by this commit."""
    root = os.path.join(out_dir, directory)
    for parent, _, names in os.walk(root):
        for name in names:
            relative = os.path.relpath(os.path.join(parent, name), out_dir).replace(os.sep, "/")
            if relative not in removing:
                return False
    return True


def _raise(problems: list[str]) -> None:
    if problems:
        shown = problems[:20]
        more = len(problems) - len(shown)
        text = "; ".join(shown) + (f"; and {more} more" if more else "")
        raise CommitError(f"{text}; nothing was written")


def check_inputs_kept(out_dir: str, produced: Iterable[str], inputs: Iterable[str]) -> None:
    """Refuse a compile that would write an output over one of its own inputs.

    An input may live inside OUT (``-o .`` beside the YAML); it may not be
    at the path of an output (a ``--select`` file named ``ATen/Functions.h``).
    """
    root = os.path.realpath(out_dir)
    inside = {}
    for source in inputs:
        real = os.path.realpath(source)
        if real.startswith(root + os.sep):
            inside[os.path.relpath(real, root).replace(os.sep, "/")] = source
    clashes = [
        f"the output {path} would overwrite the input {inside[path]}"
        for path in produced
        if path in inside
    ]
    _raise(clashes)
