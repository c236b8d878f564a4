"""Where the installed PyTorch keeps its YAML inputs, found without importing it.

``torchgen`` (shipped with torch) carries the files under ``packaged/``.
Importing torch would take seconds and pull in native libraries just to learn
a path, so the package is located through its import spec instead.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import attrs

from schemac.diagnostics import Diagnostic, InputError, Span


@attrs.frozen
class TorchYamlPaths:
    native_functions: Path
    tags: Path
    derivatives: Path
    deprecated: Path


def _torchgen_dir() -> Path | None:
    try:
        spec = importlib.util.find_spec("torchgen")
    except (ImportError, ValueError):
        spec = None
    if spec is None or spec.origin is None:
        return None
    return Path(spec.origin).parent


def installed_torch_version() -> str | None:
    """The version of the torch ``--torch`` finds, from its dist-info, as text.

    The ``torch-X.Y.Z.dist-info`` beside ``torchgen`` (a wheel installs both
    into one directory) is read rather than ``importlib.metadata`` asked,
    which would scan every distribution on the path; torch is never imported.
    None when there is no torch or no readable metadata.
    """
    torchgen = _torchgen_dir()
    if torchgen is None:
        return None
    for info in sorted(torchgen.parent.glob("torch-*.dist-info")):
        try:
            metadata = (info / "METADATA").read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        for line in metadata.splitlines():
            if line.startswith("Version:"):
                return line.partition(":")[2].strip()
            if not line:
                break  # the headers end at the first blank line
    return None


def installed_torch_include() -> Path | None:
    """``torch/include`` of the torch ``--torch`` finds, if it has one."""
    torchgen = _torchgen_dir()
    include = None if torchgen is None else torchgen.parent / "torch" / "include"
    return include if include is not None and include.is_dir() else None


def torch_yaml_paths() -> TorchYamlPaths:
    """The YAML files of the installed torch; InputError if there is none."""
    torchgen = _torchgen_dir()
    if torchgen is None:
        raise InputError([_missing("torch is not installed (no 'torchgen' package found)")])
    packaged = torchgen / "packaged"
    paths = TorchYamlPaths(
        native_functions=packaged / "ATen" / "native" / "native_functions.yaml",
        tags=packaged / "ATen" / "native" / "tags.yaml",
        derivatives=packaged / "autograd" / "derivatives.yaml",
        deprecated=packaged / "autograd" / "deprecated.yaml",
    )
    for path in attrs.astuple(paths):
        if not path.is_file():
            raise InputError([_missing(f"the installed torch has no {path}")])
    return paths


def _missing(message: str) -> Diagnostic:
    return Diagnostic(
        Span.point("<torch>", 0, 0),
        message,
        "install torch, or pass the YAML files explicitly",
    )
