"""The aggregate headers of an edit run (Note [Fragment reuse]): each function's pieces of
RedispatchFunctions.h and RegistrationDeclarations.h (TensorBody.h: torch's files, in
test_incremental) are rendered again only when the function changed, and the C++ API
views of the other functions are never computed; the files equal a cold compile's.
(Operators_<n>.cpp's buckets: tests/rebuild/test_aten_fragments.py.)"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from schemac import launcher
from schemac.backends.aten.headers import pieces
from schemac.backends.aten.signatures.table import ViewTable
from schemac.backends.buckets import bucket_of
from schemac.frontend.loader import load_module
from schemac.passes.manager import run_pipeline

ROOT = Path(__file__).resolve().parents[2]
TOY = ROOT / "examples" / "toyops"
AGGREGATES = (
    "ATen/RedispatchFunctions.h",
    "ATen/RegistrationDeclarations.h",
    "ATen/OperatorsEverything.cpp",
    "ATen/Functions.h",
)

#: (piece kind, function name) of every piece rendered, and every function
#: whose C++ API view was computed.
RENDERED: list[tuple[str, str]] = []
VIEWED: list[str] = []


def _argv(toy: Path, out: Path) -> list[str]:
    yaml = toy / "native_functions.yaml"
    return ["compile", str(yaml), "--tags", str(toy / "tags.yaml"), "-t", "headers", "-o", str(out)]


def _aggregates(out: Path) -> dict[str, bytes]:
    return {path: (out / path).read_bytes() for path in AGGREGATES}


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> None:
    RENDERED.clear()
    VIEWED.clear()
    real_cpp_group = ViewTable.cpp_group

    def cpp_group(self: ViewTable, fn: Any) -> Any:
        VIEWED.append(str(fn.func.name))
        return real_cpp_group(self, fn)

    monkeypatch.setattr(ViewTable, "cpp_group", cpp_group)
    real = pieces.function_texts

    def function_texts(views: ViewTable, entry: Any) -> tuple[str, str, str, str]:
        RENDERED.append(("headers", str(entry.name)))
        return real(views, entry)

    monkeypatch.setattr(pieces, "function_texts", function_texts)


def test_an_edit_renders_only_the_edited_functions_pieces(tmp_path: Path, counted: None) -> None:
    toy = tmp_path / "toy"
    shutil.copytree(TOY, toy)
    out = tmp_path / "out"
    assert launcher.main(_argv(toy, out)) == 0
    first = len(RENDERED)
    assert first > 15 and {kind for kind, _ in RENDERED} == {"headers"}

    RENDERED.clear()
    VIEWED.clear()
    path = toy / "native_functions.yaml"
    text = path.read_text()
    assert "float high=1.0) -> Tensor\n" in text
    path.write_text(text.replace("float high=1.0) -> Tensor\n", "float high=2.0) -> Tensor\n", 1))
    assert launcher.main(_argv(toy, out)) == 0
    # clamp_range and its autogen'd out= variant, once each, with the functions
    # sharing their buckets (Note [Fragment buckets]).
    edited = {"clamp_range", "clamp_range.out"}
    shared = {name for name in _names(toy) if bucket_of(name) in {bucket_of(e) for e in edited}}
    names = [name for _, name in RENDERED]
    assert edited <= set(names) <= shared and len(names) == len(set(names))
    assert len(shared) < first // 2
    # No other function's views were computed (its files and pieces were kept).
    assert VIEWED and set(VIEWED) <= shared
    assert _aggregates(out) == _aggregates(_cold(toy, tmp_path / "cold"))


def _names(toy: Path) -> set[str]:
    """Every function's name, generated ones included."""
    module = run_pipeline(load_module(toy / "native_functions.yaml", toy / "tags.yaml")).module
    return {str(f.func.name) for f in module.functions}


def _cold(toy: Path, where: Path) -> Path:
    assert launcher.main(_argv(toy, where)) == 0
    return where
