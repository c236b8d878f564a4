"""Deferred files keyed as groups (Note [File groups] in ``backends/reuse.py``).

The headers target defers each operator family's ``_ops.h``, ``.h``,
``_native.h`` and ``_meta.h`` as one group, and each root's ``_dispatch.h`` of
every key as another.  After an edit, a group whose files' inputs are all
unchanged is kept whole; any change renders the whole group; a file of a kept
group that OUT no longer holds as written is rendered alone.  Every tree equals
a cold compile of the same YAML.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from out_trees import contents
from schemac import launcher
from schemac.backends import reuse
from schemac.backends.output.files import GeneratedFile

ROOT = Path(__file__).resolve().parents[2]
TOY = ROOT / "examples" / "toyops"
OPS = "ATen/ops/"


def _argv(toy: Path, out: Path) -> list[str]:
    yaml = toy / "native_functions.yaml"
    return [
        "compile", str(yaml), "--tags", str(toy / "tags.yaml"),
        "-t", "headers", "-o", str(out), "-j", "1",
    ]  # fmt: skip


@pytest.fixture
def toy(tmp_path: Path) -> Path:
    copy = tmp_path / "toy"
    shutil.copytree(TOY, copy)
    return copy


@pytest.fixture
def rendered(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The path of every deferred file rendered."""
    log: list[str] = []
    made = reuse.Deferred.made

    def logged(self: reuse.Deferred) -> GeneratedFile:
        log.append(self.path)
        return made(self)

    monkeypatch.setattr(reuse.Deferred, "made", logged)
    return log


def _edit(toy: Path, old: str, new: str) -> None:
    path = toy / "native_functions.yaml"
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new, 1))


def _matches_cold(toy: Path, out: Path, where: Path) -> None:
    assert launcher.main(_argv(toy, where)) == 0
    assert contents(out) == contents(where)


def test_an_edit_renders_the_edited_familys_groups_only(
    toy: Path, tmp_path: Path, rendered: list[str]
) -> None:
    out = tmp_path / "out"
    assert launcher.main(_argv(toy, out)) == 0
    cold = set(rendered)
    assert f"{OPS}blend_cpu_dispatch.h" in cold and f"{OPS}blend_native.h" in cold
    rendered.clear()
    _edit(toy, "float high=1.0) -> Tensor\n", "float high=2.0) -> Tensor\n")
    assert launcher.main(_argv(toy, out)) == 0
    # clamp_range's family, whole: its four files and its dispatch headers.
    assert rendered and all(p.startswith(f"{OPS}clamp_range") for p in rendered), rendered
    assert {f"{OPS}clamp_range.h", f"{OPS}clamp_range_native.h"} <= set(rendered)
    assert any(p.endswith("_dispatch.h") for p in rendered)
    _matches_cold(toy, out, tmp_path / "cold")


def test_a_file_of_a_kept_group_not_as_written_is_rendered_alone(
    toy: Path, tmp_path: Path, rendered: list[str]
) -> None:
    out = tmp_path / "out"
    assert launcher.main(_argv(toy, out)) == 0
    _edit(toy, "float high=1.0) -> Tensor\n", "float high=2.0) -> Tensor\n")
    deleted, edited = out / OPS / "blend_native.h", out / OPS / "blend_cpu_dispatch.h"
    deleted.unlink()
    edited.write_text(edited.read_text() + "// edited by hand\n")
    rendered.clear()
    assert launcher.main(_argv(toy, out)) == 0
    others = {p for p in rendered if not p.startswith(f"{OPS}clamp_range")}
    assert others == {f"{OPS}blend_native.h", f"{OPS}blend_cpu_dispatch.h"}
    _matches_cold(toy, out, tmp_path / "cold")


def test_a_module_wide_input_of_one_file_renders_every_group_holding_it(
    toy: Path, tmp_path: Path, rendered: list[str]
) -> None:
    # A dispatch key new to the module adds a namespace to every _native.h (its
    # inputs name the module's keys): a group whose key left that input out
    # would keep the other families' _native.h as they were.
    out = tmp_path / "out"
    assert launcher.main(_argv(toy, out)) == 0
    rendered.clear()
    _edit(toy, "    Meta: blend_meta\n", "    Meta: blend_meta\n    XPU: blend_xpu\n")
    assert launcher.main(_argv(toy, out)) == 0
    assert f"{OPS}total_native.h" in rendered and f"{OPS}scale_native.h" in rendered
    _matches_cold(toy, out, tmp_path / "cold")
