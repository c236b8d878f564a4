"""Note [Loaded parts remembered]: a part recalled from the memo gives the functions
loading it gives (fields, spans, field spans, source keys), a part with a diagnostic
is never remembered, and whatever a part's load reads is in its key."""

from __future__ import annotations

import os
import pickle
from collections.abc import Callable
from pathlib import Path

import pytest

from schemac.diagnostics import Span
from schemac.frontend import yaml_parts
from schemac.frontend.loader import LoadResult, load_module_partially
from schemac.frontend.part_memo import pickled_part, unpickled_part
from schemac.frontend.torch_paths import torch_yaml_paths
from schemac.frontend.yaml_parts import YamlPart
from schemac.ir.native import NativeFunction


class DictMemo:
    """A memo in a dict that counts what the loader asks of it."""

    def __init__(self) -> None:
        self.parts: dict[str, bytes] = {}
        self.recalled = 0
        self.remembered = 0

    def recall(self, key: str) -> bytes | None:
        data = self.parts.get(key)
        self.recalled += data is not None
        return data

    def remember(self, key: str, data: Callable[[], bytes | None]) -> None:
        self.remembered += 1
        made = data()
        assert made is not None
        self.parts[key] = made


def _load(path: Path, tags: Path | None, memo: DictMemo | None) -> LoadResult:
    return load_module_partially(path, tags, memo=memo)


def _facts(functions: tuple[NativeFunction, ...]) -> list[object]:
    """What a function is, spans and keys included (fields compare without spans)."""
    return [(f, f.span, f.field_spans, f.func.name_span, f.source_key) for f in functions]


def _torch_copy(tmp_path: Path) -> tuple[Path, Path]:
    paths = torch_yaml_paths()
    native = tmp_path / "native_functions.yaml"
    native.write_text(Path(paths.native_functions).read_text())
    return native, Path(paths.tags)


def test_recalled_parts_are_the_loaded_ones_and_no_part_is_composed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    native, tags = _torch_copy(tmp_path)
    memo = DictMemo()
    cold = _load(native, tags, memo)
    assert not cold.diagnostics and memo.recalled == 0
    parts = memo.remembered
    assert parts > 10  # torch's file in parts, every one clean

    def refused(self: YamlPart) -> object:
        raise AssertionError("a remembered part was composed again")

    with monkeypatch.context() as patch:
        patch.setattr(YamlPart, "composed", refused)
        warm = _load(native, tags, memo)
    assert memo.recalled == parts and memo.remembered == parts
    assert _facts(warm.module.functions) == _facts(cold.module.functions)
    assert warm.module == cold.module


def test_an_edit_loads_its_part_alone_and_equals_a_load_without_memo(tmp_path: Path) -> None:
    native, tags = _torch_copy(tmp_path)
    memo = DictMemo()
    _load(native, tags, memo)
    parts = memo.remembered
    text = native.read_text()
    native.write_text(text.replace("bool equal_nan=False", "bool equal_nan=True", 1))
    edited = _load(native, tags, memo)
    assert memo.recalled == parts - 1 and memo.remembered == parts + 1
    plain = _load(native, tags, None)
    assert _facts(edited.module.functions) == _facts(plain.module.functions)
    # Lines inserted above a part move its spans: its key changes with them.
    native.write_text("# a comment\n" + text)
    memo.recalled = 0
    moved = _load(native, tags, memo)
    assert memo.recalled == 0
    assert _facts(moved.module.functions) == _facts(_load(native, tags, None).module.functions)


def _small_file(path: Path, entries: list[str]) -> None:
    path.write_text("".join(entries))


def _entry(name: str, extra: str = "") -> str:
    return f"- func: {name}(Tensor self) -> Tensor\n  variants: function\n{extra}"


@pytest.fixture
def small_parts(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(yaml_parts, "PART_ITEMS", 2)


@pytest.mark.usefixtures("small_parts")
def test_a_part_with_a_diagnostic_is_not_remembered(tmp_path: Path) -> None:
    native = tmp_path / "native_functions.yaml"
    tags = tmp_path / "tags.yaml"
    tags.write_text("- tag: core\n  desc: a tag\n")
    entries = [_entry(f"op{i}") for i in range(6)]
    entries[3] = _entry("op3", "  tags: nonsense\n")
    _small_file(native, entries)
    memo = DictMemo()
    first = _load(native, tags, memo)
    assert [d.message for d in first.diagnostics if d.is_error] != []
    assert memo.remembered == 2  # parts 0 and 2 of [op0 op1] [op2 op3] [op4 op5]
    again = _load(native, tags, memo)
    assert memo.recalled == 2
    assert [str(d) for d in again.diagnostics] == [str(d) for d in first.diagnostics]


@pytest.mark.usefixtures("small_parts")
def test_the_tags_are_in_the_key(tmp_path: Path) -> None:
    native = tmp_path / "native_functions.yaml"
    tags = tmp_path / "tags.yaml"
    tags.write_text("- tag: core\n  desc: a tag\n- tag: other\n  desc: another\n")
    _small_file(native, [_entry(f"op{i}", "  tags: core\n") for i in range(4)])
    memo = DictMemo()
    assert not _load(native, tags, memo).diagnostics
    tags.write_text("- tag: other\n  desc: another\n")
    after = _load(native, tags, memo)
    assert memo.recalled == 0
    assert len([d for d in after.diagnostics if "core" in d.message]) == 4


@pytest.mark.usefixtures("small_parts")
def test_a_recalled_part_is_checked_for_duplicates(tmp_path: Path) -> None:
    native = tmp_path / "native_functions.yaml"
    entries = [_entry(f"op{i}") for i in range(4)]
    _small_file(native, entries)
    memo = DictMemo()
    _load(native, None, memo)
    # The first part now defines op3, which the recalled second part defines too.
    _small_file(native, [_entry("op0"), _entry("op3"), *entries[2:]])
    result = _load(native, None, memo)
    assert memo.recalled == 1
    assert [d.message for d in result.diagnostics] == ["operator 'op3' is defined twice"]


def test_damaged_or_foreign_bytes_are_not_a_part(tmp_path: Path) -> None:
    native = tmp_path / "native_functions.yaml"
    _small_file(native, [_entry(f"op{i}") for i in range(2)])
    functions = _load(native, None, None).module.functions
    data = pickled_part(functions)
    assert data is not None
    back = unpickled_part(data)
    assert back is not None and _facts(back) == _facts(functions)
    assert unpickled_part(data[: len(data) // 2]) is None
    assert unpickled_part(b"not a pickle") is None
    # A pickle that would call something other than the IR's classes is refused
    # before the call: the memo is a file in OUT, not code.
    made = tmp_path / "made"

    class Planted:
        def __reduce__(self) -> tuple[object, tuple[str]]:
            return os.mkdir, (str(made),)

    assert unpickled_part(pickle.dumps(((Planted(),), ("k",)), protocol=5)) is None
    assert not made.exists()
    assert unpickled_part(pickle.dumps(((Span("f", 1, 1, 1, 2),), ("k",)), protocol=5)) is None


def test_a_recalled_schema_prints_as_written_without_walking(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Note [Schemas that print as written]: the text a parsed schema printed as
    comes back with it, handed to ``remember_text`` (the one function of the IR
    the unpickler calls)."""
    from schemac.ir import schema as schema_module

    native = tmp_path / "native_functions.yaml"
    _small_file(native, [_entry(f"op{i}") for i in range(2)])
    functions = _load(native, None, None).module.functions
    texts = [f.func.remembered_text for f in functions]
    assert all(texts)
    data = pickled_part(functions)
    assert data is not None

    def walked(schema: object) -> str:
        raise AssertionError("a recalled schema was printed from its parts")

    monkeypatch.setattr(schema_module, "schema_text", walked)
    back = unpickled_part(data)
    assert back is not None and [str(f.func) for f in back] == texts
    # A text of something else than the IR's schema function is refused as before.
    planted = pickle.dumps((os.getcwd, ()), protocol=5)
    assert unpickled_part(planted) is None


def test_functions_without_source_keys_are_not_pickled() -> None:
    function = NativeFunction.__new__(NativeFunction)
    assert pickled_part([function]) is None


def _torch_copies(tmp_path: Path) -> tuple[Path, Path, Path]:
    native, tags = _torch_copy(tmp_path)
    derivatives = tmp_path / "derivatives.yaml"
    derivatives.write_text(Path(torch_yaml_paths().derivatives).read_text())
    return native, tags, derivatives


def _entry_facts(result: LoadResult) -> list[object]:
    return [(e, e.span, e.field_spans, e.schema.span) for e in result.module.derivatives]


def test_recalled_derivative_parts_are_the_loaded_ones(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    native, tags, derivatives = _torch_copies(tmp_path)
    memo = DictMemo()
    cold = load_module_partially(native, tags, derivatives, memo=memo)
    assert not cold.diagnostics and len(cold.module.derivatives) > 600
    parts = memo.remembered

    def refused(self: YamlPart) -> object:
        raise AssertionError("a remembered part was composed again")

    with monkeypatch.context() as patch:
        patch.setattr(YamlPart, "composed", refused)
        warm = load_module_partially(native, tags, derivatives, memo=memo)
    assert memo.recalled == parts
    assert _entry_facts(warm) == _entry_facts(cold)
    # Composed whole (Note [Lists composed in parts]): the same entries.
    monkeypatch.setattr(yaml_parts, "PART_ITEMS", 10**6)
    whole = load_module_partially(native, tags, derivatives)
    assert _entry_facts(whole) == _entry_facts(cold)


def test_a_recalled_derivative_part_still_names_operators(tmp_path: Path) -> None:
    """An entry's operator is looked up in native_functions.yaml again: a part
    whose entry lost its operator is loaded, and reports it."""
    native, tags, derivatives = _torch_copies(tmp_path)
    memo = DictMemo()
    load_module_partially(native, tags, derivatives, memo=memo)
    text = native.read_text()
    # Renamed in native_functions.yaml only: derivatives.yaml's entry now names nothing.
    native.write_text(text.replace("- func: sinh(Tensor self)", "- func: sinh2(Tensor self)"))
    memo.recalled = 0
    result = load_module_partially(native, tags, derivatives, memo=memo)
    plain = load_module_partially(native, tags, derivatives)
    assert [str(d) for d in result.diagnostics] == [str(d) for d in plain.diagnostics]
    assert any("no operator 'sinh(Tensor self)" in d.message for d in result.diagnostics)
