"""The aggregate headers of an edit run (Note [Fragment reuse]): each function's pieces of
RedispatchFunctions.h and RegistrationDeclarations.h (TensorBody.h: torch's files, in
test_incremental) are rendered again only when the function changed, and the C++ API
views of the other functions are never computed; the files equal a cold compile's.
(Operators_<n>.cpp's buckets: tests/rebuild/test_aten_fragments.py.)"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from schemac import launcher
from schemac.backends.aten.headers import pieces
from schemac.backends.aten.signatures.table import ViewTable

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
    for module, name, kind, of in ((pieces, "function_pieces", "headers", lambda e: str(e.name)),):
        real = getattr(module, name)
        counting = _Counting(kind, real, of)
        monkeypatch.setattr(module, name, counting)


class _Counting:
    """A render that records what it renders, under the real render's name (the
    fragment keys stay those of an ordinary run)."""

    __closure__ = None

    def __init__(self, kind: str, real: Callable[[Any, Any], str], of: Callable[[Any], str]):
        self.kind, self.real, self.of = kind, real, of
        self.__module__ = real.__module__
        self.__qualname__ = real.__qualname__

    def __call__(self, context: Any, inputs: Any) -> str:
        RENDERED.append((self.kind, self.of(inputs)))
        return self.real(context, inputs)


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
    # clamp_range and its autogen'd out= variant, once each.
    edited = {"clamp_range", "clamp_range.out"}
    assert {name for _, name in RENDERED} == edited and len(RENDERED) == 2
    # No other function's views were computed (its files and pieces were kept).
    assert VIEWED and set(VIEWED) <= edited
    assert _aggregates(out) == _aggregates(_cold(toy, tmp_path / "cold"))


def _cold(toy: Path, where: Path) -> Path:
    assert launcher.main(_argv(toy, where)) == 0
    return where
