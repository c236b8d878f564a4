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


def torch_yaml_paths() -> TorchYamlPaths:
    """The YAML files of the installed torch; InputError if there is none."""
    try:
        spec = importlib.util.find_spec("torchgen")
    except (ImportError, ValueError):
        spec = None
    if spec is None or spec.origin is None:
        raise InputError([_missing("torch is not installed (no 'torchgen' package found)")])
    packaged = Path(spec.origin).parent / "packaged"
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
