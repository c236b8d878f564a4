"""``schemac backend-init NAME``: a starter tree for a new PrivateUse1 device.

The tree is the layout of ``examples/hostdev`` with the device called NAME:
a backend YAML listing the operators every device must provide, the runtime
(allocator, device guard, hooks), those kernels over host memory, and the
Python package that builds the library with schemac and cpp_extension,
renames PrivateUse1 and registers ``torch.NAME``.  It builds and runs as
written; a real device then replaces the host-memory pieces.
"""

from __future__ import annotations

import keyword
import re
from pathlib import Path

import attrs

from schemac.backends.templating import Templates

PACKAGE = "schemac.backends.backend_stubs"

_NAME = re.compile(r"[a-z][a-z0-9_]*\Z")


@attrs.frozen
class ScaffoldView:
    name: str


def name_problem(name: str) -> str | None:
    """Why ``name`` cannot name a device (it becomes a C++ namespace and a Python package)."""
    if not _NAME.match(name) or keyword.iskeyword(name) or name in ("torch", "cpu", "cuda"):
        return f"'{name}' is not a lower-case identifier that can name a device and a package"
    return None


def scaffold_files(name: str) -> dict[str, str]:
    """Relative path -> text of every file ``backend-init`` writes."""
    templates = Templates(PACKAGE)
    view = ScaffoldView(name)
    layout = {
        "backend.yaml": "scaffold_backend.yaml.mako",
        "csrc/device.h": "scaffold_device.h.mako",
        "csrc/device.cpp": "scaffold_device.cpp.mako",
        "csrc/kernels.cpp": "scaffold_kernels.cpp.mako",
        f"{name}/__init__.py": "scaffold_init.py.mako",
        f"{name}/build.py": "scaffold_build.py.mako",
    }
    return {path: templates.render(template, view) for path, template in layout.items()}


def write_scaffold(name: str, directory: Path) -> list[Path]:
    """Write the tree; FileExistsError (nothing written) if any file exists already."""
    files = scaffold_files(name)
    existing = [directory / path for path in files if (directory / path).exists()]
    if existing:
        raise FileExistsError(existing[0])
    written = []
    for path, text in files.items():
        target = directory / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
        written.append(target)
    return written
