"""The paths ``schemac compile`` writes, checked before any work: a usage error costs nothing.

Caught while writing, a bad path would be found after the outputs were in
place.  The rules: ``-o`` is (or can become) a directory whose name leaves
room for the names schemac keeps beside it; ``--depfile`` and
``--outputs-list`` are files, distinct from each other, from every input and
from anything inside OUT; and when a depfile or an outputs list is written, no
path in it holds a line break, which neither format can express.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Sequence
from pathlib import Path

#: What the longest name kept beside OUT adds to OUT's own name
#: (``.OUT.schemac-stage-XXXXXXXX``, :mod:`schemac.backends.output.lock`).
_BESIDE_OVERHEAD = len("..schemac-stage-") + 8


def _real(path: Path) -> str:
    return os.path.realpath(path)


def _inside(path: str, directory: str) -> bool:
    return path == directory or path.startswith(directory.rstrip(os.sep) + os.sep)


def _name_max(directory: Path) -> int:
    existing = next((p for p in (directory, *directory.parents) if p.is_dir()), Path("/"))
    try:
        return os.pathconf(existing, "PC_NAME_MAX")
    except (OSError, ValueError, AttributeError):
        return 255


def output_paths_problem(
    out: Path,
    depfile: Path | None,
    outputs_list: Path | None,
    inputs: Sequence[tuple[str, Path | None]],
) -> str | None:
    """Why the compile's output paths cannot work, or None.

    ``inputs``: ``(option, path)`` of every input file, as the message names it.
    """
    too_long = next((p for p in out.parts if len(p.encode("utf-8", "replace")) > 255), None)
    if too_long is not None:
        return f"-o: the path component '{too_long[:40]}...' is longer than 255 bytes"
    existing = next((p for p in (out, *out.parents) if p.exists()), None)
    if existing is not None and not existing.is_dir():
        where = "" if existing == out else f" ('{existing}' is a file)"
        return f"-o: '{out}' is not a directory{where}"
    name = os.path.basename(os.path.abspath(out))
    limit = _name_max(out.parent) - _BESIDE_OVERHEAD
    if len(name.encode("utf-8", "surrogateescape")) > limit:
        return (
            f"-o: the directory name is {len(name)} characters long; at most {limit} fit"
            " (schemac keeps '.NAME.schemac-*' beside it)"
        )
    too_long = next((p for p in out.parts if len(p.encode("utf-8", "replace")) > 255), None)
    if too_long is not None:
        return f"-o: the path component '{too_long[:40]}...' is longer than 255 bytes"
    written = [(o, p) for o, p in (("--depfile", depfile), ("--outputs-list", outputs_list)) if p]
    for option, path in written:
        if path.is_dir():
            return f"{option}: '{path}' is a directory, not a file"
    return _overlap(out, written, [(o, p) for o, p in inputs if p is not None])


def _overlap(
    out: Path, written: list[tuple[str, Path]], inputs: list[tuple[str, Path]]
) -> str | None:
    real_out = _real(out)
    # An input may sit inside OUT (``-o .`` beside the YAML); the driver
    # refuses an output at an input's path (preflight.check_inputs_kept).
    for index, (option, path) in enumerate(written):
        real = _real(path)
        if _inside(real, real_out):
            return f"{option} '{path}' is inside the output directory -o '{out}'"
        for other, other_path in [*inputs, *written[:index]]:
            if real == _real(other_path):
                return f"{option} '{path}' is the same file as {other} '{other_path}'"
    if written:
        for option, path in [("-o", out), *written, *inputs]:
            if any(c in str(path) for c in "\n\r"):
                return (
                    f"{option} {str(path)!r} contains a line break, which a depfile or an"
                    " outputs list cannot express"
                )
    return None


def output_path(text: str) -> Path:
    """An output path; '' would silently mean the current directory (Path('') is '.')."""
    if not text.strip():
        raise argparse.ArgumentTypeError("an empty path")
    return Path(text)
