"""Building ${view.name}: schemac generates the registrations, cpp_extension compiles.

The generated files are build products, never checked in: ``backend.yaml`` is
the source.  ``--impl-path`` makes schemac fail, at the YAML entry, when the
YAML lists a kernel that ``csrc/kernels.cpp`` does not define, before the
compiler or the linker would.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

EXAMPLE = Path(__file__).resolve().parent.parent
CSRC = EXAMPLE / "csrc"
BACKEND_YAML = EXAMPLE / "backend.yaml"


def generate(out: Path) -> list[Path]:
    """Run ``schemac compile --torch --backend backend.yaml``; the generated C++ sources."""
    command = [
        sys.executable, "-m", "schemac", "compile", "--torch",
        "--backend", str(BACKEND_YAML), "-o", str(out),
        "--impl-path", str(CSRC / "kernels.cpp"),
    ]  # fmt: skip
    subprocess.run(command, check=True)
    return sorted(out.glob("Register*.cpp"))


def build(directory: str | Path, *, verbose: bool = False) -> str:
    """Generate and compile into ``directory``; the path of the shared library."""
    from torch.utils.cpp_extension import load

    directory = Path(directory).resolve()
    generated = directory / "generated"
    sources = [CSRC / "device.cpp", CSRC / "kernels.cpp", *generate(generated)]
    objects = directory / "objects"
    objects.mkdir(parents=True, exist_ok=True)
    load(
        name="${view.name}_ext",
        sources=[str(s) for s in sources],
        extra_include_paths=[str(generated), str(CSRC)],
        build_directory=str(objects),
        is_python_module=False,
        verbose=verbose,
    )
    return str(objects / "${view.name}_ext.so")
