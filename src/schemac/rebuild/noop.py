"""The no-op path of ``schemac compile``: Note [Up-to-date check], before any heavy import.

:func:`up_to_date` looks at the raw command line only to find OUT; whether the
run may stop there is then decided by the state OUT holds, whose key hashes
the whole command line.  A misread OUT therefore costs at most a full run,
never a wrong answer: a state whose key matches was written by a compile
with this very command line in this very directory, whose OUT was the one
argparse gives, which is where the state was written.
"""

from __future__ import annotations

import os
import sys
import time

from schemac.rebuild.fingerprint import command_run_key
from schemac.rebuild.state import up_to_date_files

# Not typing.TYPE_CHECKING: see schemac/__init__.py.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence


def out_dir_of(argv: Sequence[str]) -> str | None:
    """OUT of a ``compile`` command line (``-o X``, ``-oX``, ``--out X``, ``--out=X``)."""
    if not argv or argv[0] != "compile":
        return None
    found = None
    words = iter(argv[1:])
    for word in words:
        if word == "--":
            break
        if word in ("-o", "--out"):
            found = next(words, None)
        elif word.startswith("--out="):
            found = word[len("--out=") :]
        elif word.startswith("-o") and not word.startswith("--"):
            found = word[2:]
    return found or None


def path_text(text: str) -> str:
    """``str(Path(text))`` on POSIX, without importing pathlib: empty and ``.``
    components dropped, ``..`` kept."""
    parts = [part for part in text.split("/") if part not in ("", ".")]
    joined = "/".join(parts)
    if text.startswith("/"):
        return ("//" if text.startswith("//") and not text.startswith("///") else "/") + joined
    return joined or "."


def _commit_pending(out: str) -> bool:
    """Whether an interrupted commit into OUT left its journal directory beside it
    (``.OUT.schemac-commit``): only a full run, under OUT's lock, may finish it."""
    parent, name = os.path.split(os.path.abspath(out))
    return os.path.lexists(os.path.join(parent, f".{name}.schemac-commit"))


def summary(out_dir: str, files: int) -> str:
    """The line a compile that changed nothing prints (``CommitReport.summary``'s wording)."""
    return f"schemac: wrote {out_dir}: 0 created, 0 updated, {files} unchanged, 0 stale removed"


def up_to_date(argv: Sequence[str]) -> bool:
    """True, with the summary printed, if the compile ``argv`` asks for has nothing to do."""
    if os.environ.get("SCHEMAC_NO_STATE"):
        return False
    out = out_dir_of(argv)
    if out is None:
        return False
    if _commit_pending(out):
        return False
    start = time.perf_counter()
    files = up_to_date_files(out, lambda: command_run_key(argv))
    if files is None:
        return False
    sys.stdout.write(summary(path_text(out), files) + "\n")
    if "--time-passes" in argv:
        sys.stderr.write(f"up-to-date check  {time.perf_counter() - start:8.4f}\n")
    return True
