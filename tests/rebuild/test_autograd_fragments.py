"""The autograd target's pieces (Note [Autograd pieces]): after an edit, only the
kernels and backward nodes the edit changed are printed again, and the files equal
a cold run's.

An edit of derivatives.yaml is covered by the pieces' inputs (``BackendEntry.covers``),
so it too prints only the changed pieces: a key that missed a formula would leave
the old text in Functions.cpp, which the comparison with a cold run catches.
Each render function is replaced by a counting one (module-level, as the fragment
rules require) that records which pieces it printed.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from out_trees import compile_argv, contents
from schemac import launcher
from schemac.backends.autograd import functions, kernel_shards, variable_type

ROOT = Path(__file__).resolve().parents[2]
TOY = ROOT / "examples" / "toyops"

#: (family, names of the bucket's pieces) of every bucket printed since the last clear.
RENDERED: list[tuple[str, tuple[str, ...]]] = []
_REAL: dict[str, Callable[[Any, Any], str]] = {
    "kernels": kernel_shards._render_kernels,
    "variable_type": variable_type._render_kernels,
    "nodes": functions._render_nodes,
}
FAMILIES = {"TraceType", "ADInplaceOrViewType", "VariableType", "autograd-nodes"}


def _count_kernels(context: Any, inputs: Any) -> str:
    RENDERED.append((inputs[0], tuple(plan.schema_name for plan in inputs[1])))
    return _REAL["kernels"](context, inputs)


def _count_variable_type(context: Any, inputs: Any) -> str:
    RENDERED.append((inputs[0], tuple(plan.schema_name for plan, _ in inputs[1])))
    return _REAL["variable_type"](context, inputs)


def _count_nodes(context: Any, inputs: Any) -> str:
    RENDERED.append((inputs[0], tuple(info.node for info, _ in inputs[1])))
    return _REAL["nodes"](context, inputs)


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(kernel_shards, "_render_kernels", _count_kernels)
    monkeypatch.setattr(variable_type, "_render_kernels", _count_variable_type)
    monkeypatch.setattr(functions, "_render_nodes", _count_nodes)
    RENDERED.clear()


def _argv(toy: Path, out: Path) -> list[str]:
    return compile_argv(toy, out, "autograd", derivatives=True)


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert text.count(old) == 1, old
    path.write_text(text.replace(old, new))


def _printed(family: str) -> set[str]:
    return {name for f, names in RENDERED if f == family for name in names}


@pytest.mark.usefixtures("counted")
def test_an_edit_prints_only_the_changed_kernels_and_nodes(tmp_path: Path) -> None:
    toy = tmp_path / "toy"
    shutil.copytree(TOY, toy)
    out = tmp_path / "out"
    assert launcher.main(_argv(toy, out)) == 0
    # Every family printed pieces, more than an edit touches.
    assert {family for family, _ in RENDERED} == FAMILIES
    assert len(_printed("VariableType")) > 10
    assert "ScaleBackward0" in _printed("autograd-nodes")

    # A default value in one schema (and in the derivatives.yaml entry naming it):
    # that function's kernels (its buckets') and, its infos being keyed by the
    # function's source (Note [Infos keyed by their source]), its own node's
    # bucket; no other node.
    RENDERED.clear()
    for name in ("native_functions.yaml", "derivatives.yaml"):
        _edit(
            toy / name, "Tensor other, *, float weight=0.5)", "Tensor other, *, float weight=0.25)"
        )
    assert launcher.main(_argv(toy, out)) == 0
    assert RENDERED, "an edited schema printed no kernel"
    assert all(
        "blend.Tensor" in names or (family == "autograd-nodes" and "BlendBackward0" in names)
        for family, names in RENDERED
    ), RENDERED
    assert {"VariableType", "TraceType"} <= {family for family, _ in RENDERED}
    assert _printed("autograd-nodes") <= {"BlendBackward0"}
    assert launcher.main(_argv(toy, tmp_path / "cold1")) == 0
    assert contents(out) == contents(tmp_path / "cold1")

    # A backward formula: its node, and the kernels of the functions using it.
    RENDERED.clear()
    _edit(toy / "derivatives.yaml", "  self: grad * factor\n", "  self: grad * factor * 2\n")
    assert launcher.main(_argv(toy, out)) == 0
    assert "ScaleBackward0" in _printed("autograd-nodes")
    assert "scale" in _printed("VariableType")
    assert all(
        any(n.startswith("scale") or n == "ScaleBackward0" for n in names) for _, names in RENDERED
    ), RENDERED
    assert launcher.main(_argv(toy, tmp_path / "cold2")) == 0
    assert contents(out) == contents(tmp_path / "cold2")
