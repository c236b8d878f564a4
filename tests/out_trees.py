"""What an output directory holds, for the tests that compare one compile's OUT with another's."""

from __future__ import annotations

from pathlib import Path

from schemac.rebuild.fragments import FRAGMENTS_NAME, TAIL_NAME
from schemac.rebuild.loaded_parts import PARTS_NAME
from schemac.rebuild.state import STATE_NAME

#: What a compile keeps in OUT for its next run: never output, never compared.
BOOKKEEPING = frozenset({STATE_NAME, FRAGMENTS_NAME, TAIL_NAME, PARTS_NAME})


def contents(root: Path) -> dict[str, bytes]:
    """Each file's bytes by its path under ``root``, bookkeeping left out."""
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and p.name not in BOOKKEEPING
    }


def stats(root: Path) -> dict[str, tuple[int, int, int]]:
    """Inode, mtime and ctime of everything under ``root``: equal only if nothing was touched."""
    return {
        str(p.relative_to(root)): (p.stat().st_ino, p.stat().st_mtime_ns, p.stat().st_ctime_ns)
        for p in sorted(root.rglob("*"))
    }


def compile_argv(
    library: Path, out: Path, targets: str, *extra: str, derivatives: bool = False
) -> list[str]:
    """``schemac compile`` of a library laid out like examples/toyops into ``out``."""
    native, tags = library / "native_functions.yaml", library / "tags.yaml"
    words = ["compile", str(native), "--tags", str(tags)]
    if derivatives:
        words += ["--derivatives", str(library / "derivatives.yaml")]
    return [*words, "-t", targets, "-o", str(out), *extra]
