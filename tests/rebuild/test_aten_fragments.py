"""The ATen backends' fragments (docs/rebuild.md "The clients"): after an edit of one
operator, only that operator's pieces are printed again, and the files equal a cold run's.

Each client's render function is replaced by a counting one (module-level, as the
fragment rules require) that records which operator the piece was rendered for.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from out_trees import compile_argv, contents
from schemac import launcher
from schemac.backends.aten.registrations import operators, register_key, view_copy
from schemac.backends.functionalization import plan
from schemac.backends.vmap import backend as vmap

ROOT = Path(__file__).resolve().parents[2]
TOY = ROOT / "examples" / "toyops"
TARGETS = "headers,cpu,cuda,meta,composite,functionalization,vmap"

#: (client, operator name) of every piece rendered since the last clear; a bucket
#: (Note [Fragment buckets]) records the first of its pieces' names that the check
#: looks for (the edited operator's, if it holds it).
RENDERED: list[tuple[str, str]] = []
#: The prefix of the edited operator's names (a bucket holds other operators too).
EDITED: list[str] = [""]
_REAL: dict[str, Callable[[Any, Any], str]] = {
    "item": register_key._render_items,
    "view_copy_out": view_copy._render_out,
    "mutation": plan._render_mutations,
    "operators": operators._render_bucket,
    "plumbing": vmap._render_bucket,
}


def _bucket_name(names: list[str]) -> str:
    return next((n for n in names if n.startswith(EDITED[0])), names[0])


def _count_item(context: Any, inputs: Any) -> str:
    # A bucket of items of one key; each item's grouped source: its members share the root name.
    pieces = inputs[1]
    roots = [source.members[0].function.func.name.name.base for _, source, _ in pieces]
    RENDERED.append((f"item {pieces[0][0]}", _bucket_name(roots)))
    return _REAL["item"](context, inputs)


def _count_view_copy_out(context: Any, inputs: Any) -> str:
    RENDERED.append(("view_copy_out", str(inputs[0].func.name)))
    return _REAL["view_copy_out"](context, inputs)


def _count_mutation(context: Any, inputs: Any) -> str:
    RENDERED.append(("mutation", _bucket_name([str(f.func.name) for f, _ in inputs[1]])))
    return _REAL["mutation"](context, inputs)


def _count_operators(context: Any, inputs: Any) -> str:
    RENDERED.append(("operators", _bucket_name([str(f.func.name) for f in inputs[1]])))
    return _REAL["operators"](context, inputs)


def _count_plumbing(context: Any, inputs: Any) -> str:
    RENDERED.append(("plumbing", _bucket_name([str(f.func.name) for f, _ in inputs[1]])))
    return _REAL["plumbing"](context, inputs)


def _argv(toy: Path, out: Path) -> list[str]:
    return compile_argv(toy, out, TARGETS)


def _edit(toy: Path, old: str, new: str) -> None:
    path = toy / "native_functions.yaml"
    text = path.read_text()
    assert text.count(old) == 1, old
    path.write_text(text.replace(old, new))


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(register_key, "_render_items", _count_item)
    monkeypatch.setattr(view_copy, "_render_out", _count_view_copy_out)
    monkeypatch.setattr(plan, "_render_mutations", _count_mutation)
    monkeypatch.setattr(operators, "_render_bucket", _count_operators)
    monkeypatch.setattr(vmap, "_render_bucket", _count_plumbing)
    RENDERED.clear()
    EDITED[0] = ""


@pytest.mark.usefixtures("counted")
def test_an_edit_prints_only_the_edited_operators_pieces(tmp_path: Path) -> None:
    toy = tmp_path / "toy"
    shutil.copytree(TOY, toy)
    out = tmp_path / "out"
    assert launcher.main(_argv(toy, out)) == 0
    cold = set(RENDERED)
    # Every client printed pieces, of more operators than the edit touches.
    assert {client.split()[0] for client, _ in cold} == set(_REAL)
    assert len({name for _, name in cold}) > 10

    # clamp_range: a CompositeExplicitAutograd kernel and an autogen'd out= variant
    # (a generated kernel in CompositeViewCopyKernels.cpp, a mutation kernel).  An
    # argument renamed, which every client prints (a default value edit would skip
    # the units blind to defaults whole: Note [Keys blind to an aspect]).
    RENDERED.clear()
    EDITED[0] = "clamp_range"
    _edit(toy, "float high=1.0) -> Tensor\n", "float top=1.0) -> Tensor\n")
    assert launcher.main(_argv(toy, out)) == 0
    assert RENDERED and all(name.startswith("clamp_range") for _, name in RENDERED), RENDERED
    assert {client.split()[0] for client, _ in RENDERED} == set(_REAL)
    assert launcher.main(_argv(toy, tmp_path / "cold1")) == 0
    assert contents(out) == contents(tmp_path / "cold1")

    # A kernel renamed under one key: the pieces of that operator only (the function's
    # dispatch entry is part of it, so its other keys' pieces are printed again too).
    RENDERED.clear()
    EDITED[0] = "blend"
    _edit(toy, "    CPU: blend_cpu\n", "    CPU: blend_cpu_edited\n")
    assert launcher.main(_argv(toy, out)) == 0
    assert ("item CPU", "blend") in RENDERED
    assert all(name.startswith("blend") for _, name in RENDERED), RENDERED
    assert launcher.main(_argv(toy, tmp_path / "cold2")) == 0
    assert contents(out) == contents(tmp_path / "cold2")
