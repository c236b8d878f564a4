"""Copies of torch's four YAML files to edit, their compiles, and which units a compile's
files belong to: for the tests that recompile an edited copy into the same OUT and compare
it with a cold compile (``tests/rebuild/test_blind_units.py`` and its neighbours)."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

from schemac.backends.registry import BACKENDS
from schemac.cli import main
from schemac.frontend.torch_paths import torch_yaml_paths
from schemac.rebuild.reuse import Previous
from schemac.rebuild.state import STATE_NAME

#: The input files, by the name of their ``torch_yaml_paths`` field and their command-line option.
YAML_NAMES = ("native_functions", "tags", "derivatives", "deprecated")


def copy_torch_yaml(where: Path, change: Callable[[str, str], str] | None = None) -> Path:
    """Torch's four YAML files copied into the new directory ``where`` (each text passed
    through ``change(name, text)`` if given); ``where``."""
    where.mkdir()
    paths = torch_yaml_paths()
    for name in YAML_NAMES:
        source = Path(getattr(paths, name))
        if change is None:
            shutil.copy(source, where / f"{name}.yaml")
        else:
            (where / f"{name}.yaml").write_text(change(name, source.read_text()))
    return where


def compile_units(yaml_dir: Path, out: Path, targets: str = "all") -> dict[str, list[str]]:
    """Compile ``targets`` from the copy in ``yaml_dir`` into ``out``; each unit's files
    (``target/backend`` -> sorted paths), from the state the compile left."""
    argv = ["compile", str(yaml_dir / "native_functions.yaml")]
    for name in YAML_NAMES[1:]:
        argv += [f"--{name}", str(yaml_dir / f"{name}.yaml")]
    assert main([*argv, "-t", targets, "-o", str(out)]) == 0
    state = (out / STATE_NAME).read_text(encoding="utf-8", errors="surrogateescape")
    return {unit: sorted(p for _, p in pairs) for unit, pairs in Previous(state).outputs.items()}


def unit_of_file(units: dict[str, list[str]]) -> dict[str, str]:
    """:func:`compile_units`' answer turned around: each file's unit."""
    return {path: unit for unit, paths in units.items() for path in paths}


def units_blind_to(aspect: str) -> frozenset[str]:
    """The units (``target/backend``) whose registry entry claims blindness to ``aspect``
    (one of ``schemac.ir.slots.BLIND_ASPECTS``' single aspects), alone or with another."""
    return frozenset(
        f"{target}/{entry.name}"
        for entry in BACKENDS
        if aspect in entry.blind_to.split("+")
        for target in entry.targets
    )
