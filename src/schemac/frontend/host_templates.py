"""Finding and reading the host release's template folders (see :mod:`schemac.ir.host`).

PyTorch keeps its hand-written template text in two folders, laid out one of
two ways:

* in a wheel, ``torchgen/packaged/ATen/templates`` and
  ``torchgen/packaged/autograd/templates``;
* in a source checkout, ``aten/src/ATen/templates`` and
  ``tools/autograd/templates``.

``--host-templates DIR`` may name the ``packaged`` folder, the directory that
holds ``torchgen/`` (site-packages, an unpacked wheel) or a checkout's root;
``--torch`` uses the folders next to the YAML files it found.  Every regular
file of both folders is read: they are small (about 250 KB together), and a
backend then needs no file system access to splice into them.
"""

from __future__ import annotations

from pathlib import Path

from schemac.diagnostics import Diagnostic, InputError, Span
from schemac.ir.frozen import FrozenMap
from schemac.ir.host import ATEN, AUTOGRAD, HostFile, HostTemplates

#: Each layout: where, under the directory named, the ATen and autograd folders are.
_LAYOUTS: tuple[tuple[str, str], ...] = (
    ("ATen/templates", "autograd/templates"),
    ("torchgen/packaged/ATen/templates", "torchgen/packaged/autograd/templates"),
    ("aten/src/ATen/templates", "tools/autograd/templates"),
)


def load_host_templates(directory: str | Path) -> HostTemplates:
    """Every template file under ``directory``; InputError if no layout matches."""
    root = Path(directory)
    for aten, autograd in _LAYOUTS:
        folders = ((ATEN, root / aten), (AUTOGRAD, root / autograd))
        if all(path.is_dir() for _, path in folders):
            return HostTemplates(str(root), FrozenMap(_read_folders(folders)))
    raise InputError(
        [
            Diagnostic(
                Span.point(str(root), 0, 0),
                f"no PyTorch template folders under '{root}'",
                "name torchgen's 'packaged' folder, the directory holding 'torchgen/', or a "
                "PyTorch checkout (with aten/src/ATen/templates and tools/autograd/templates)",
            )
        ]
    )


def host_root_of(native_functions: str | Path) -> Path:
    """The template root that belongs with a ``native_functions.yaml``.

    Both layouts keep the YAML in ``<...>/ATen/native/``; in a wheel the
    template folders sit beside ``ATen``, in a checkout ``aten/src`` is two
    levels further down than the root.
    """
    aten_dir = Path(native_functions).resolve().parent.parent
    if aten_dir.parent.name == "src" and aten_dir.parent.parent.name == "aten":
        return aten_dir.parent.parent.parent
    return aten_dir.parent


def _read_folders(folders: tuple[tuple[str, Path], ...]) -> list[tuple[str, HostFile]]:
    files: list[tuple[str, HostFile]] = []
    for folder, path in folders:
        for file in sorted(path.iterdir()):
            if not file.is_file():
                continue
            name = f"{folder}/{file.name}"
            text = file.read_text(encoding="utf-8", errors="replace")
            files.append((name, HostFile(name, str(file), text)))
    return files
