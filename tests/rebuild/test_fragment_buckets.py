"""Pieces rendered in buckets of fragments (Note [Fragment buckets]): the Python
bindings, rendered again only in the buckets an edit changed."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from fragment_store import MemoryStore
from out_trees import compile_argv
from schemac import launcher
from schemac.backends.buckets import SEPARATOR, bucket_of, bucketed_texts
from schemac.backends.python import emit
from schemac.backends.reuse import Fragments

ROOT = Path(__file__).resolve().parents[2]
TOY = ROOT / "examples" / "toyops"

#: The names of the pieces each bucket render was given, in order.
RENDERED: list[list[str]] = []


def _shout(context: object, bucket: tuple[str, tuple[str, ...]]) -> str:
    label, names = bucket
    RENDERED.append(list(names))
    return "".join(f"{label}:{name.upper()}{SEPARATOR}" for name in names)


def _one_text_short(context: object, bucket: tuple[str, tuple[str, ...]]) -> str:
    return "".join(f"{name}{SEPARATOR}" for name in bucket[1][1:])


#: Names spread over several buckets, some sharing one.
NAMES = [f"op{i}" for i in range(200)]


def test_the_texts_come_back_in_the_order_of_the_pieces() -> None:
    RENDERED.clear()
    texts = bucketed_texts(Fragments(), _shout, "f", NAMES, NAMES)
    assert texts == [f"f:{name.upper()}" for name in NAMES]
    # One render per non-empty bucket, each piece in the bucket its name hashes to.
    assert len(RENDERED) == len({bucket_of(n) for n in NAMES}) < len(NAMES)
    for rendered in RENDERED:
        assert len({bucket_of(n) for n in rendered}) == 1


def test_an_edited_piece_renders_its_bucket_only() -> None:
    first = MemoryStore()
    bucketed_texts(Fragments(first, "t"), _shout, "f", NAMES, NAMES)
    edited = [*NAMES[:50], "op50x", *NAMES[51:]]
    RENDERED.clear()
    texts = bucketed_texts(
        Fragments(MemoryStore(first.remembered), "t"), _shout, "f", edited, edited
    )
    assert texts == [f"f:{name.upper()}" for name in edited]
    # The bucket op50 left and the one op50x joined: their keys changed.
    changed = sorted({bucket_of("op50"), bucket_of("op50x")})
    expected = [[n for n in edited if bucket_of(n) == b] for b in changed]
    assert expected == RENDERED
    # Another label is another family: nothing of the first is reused.
    RENDERED.clear()
    bucketed_texts(Fragments(MemoryStore(first.remembered), "t"), _shout, "g", NAMES, NAMES)
    assert sum(map(len, RENDERED)) == len(NAMES)


def test_a_bucket_with_a_missing_text_fails_loudly() -> None:
    with pytest.raises(AssertionError, match="rendered as"):
        bucketed_texts(Fragments(), _one_text_short, "f", NAMES, NAMES)


def _counting_bindings(context: object, bucket: tuple[str, tuple[object, ...]]) -> str:
    RENDERED.append([b.python_name for b in bucket[1]])  # type: ignore[attr-defined]
    return _REAL_BINDINGS(context, bucket)  # type: ignore[arg-type]


_REAL_BINDINGS = emit._bindings_text


def _argv(toy: Path, out: Path) -> list[str]:
    return compile_argv(toy, out, "python")


def _python_files(out: Path) -> dict[str, bytes]:
    return {str(p.relative_to(out)): p.read_bytes() for p in sorted((out / "python").iterdir())}


def test_an_edit_renders_the_edited_bindings_bucket_and_matches_a_cold_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    toy = tmp_path / "toy"
    shutil.copytree(TOY, toy)
    out = tmp_path / "out"
    monkeypatch.setattr(emit, "_bindings_text", _counting_bindings)
    RENDERED.clear()
    assert launcher.main(_argv(toy, out)) == 0
    bound = sum(map(len, RENDERED))
    assert bound > 20
    before = _python_files(out)

    RENDERED.clear()
    path = toy / "native_functions.yaml"
    text = path.read_text()
    assert "float high=1.0) -> Tensor\n" in text
    path.write_text(text.replace("float high=1.0) -> Tensor\n", "float high=2.0) -> Tensor\n", 1))
    assert launcher.main(_argv(toy, out)) == 0
    # torch.clamp_range's bucket of python_torch_functions_<i>.cpp, nothing else.
    assert len(RENDERED) == 1 and "clamp_range" in RENDERED[0]
    assert {bucket_of(name) for name in RENDERED[0]} == {bucket_of("clamp_range")}
    assert len(RENDERED[0]) < bound // 4
    incremental = _python_files(out)
    assert incremental != before
    assert launcher.main(_argv(toy, tmp_path / "cold")) == 0
    assert incremental == _python_files(tmp_path / "cold")


def test_a_derivatives_edit_renders_no_binding(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The python target's node getters read derivatives.yaml, its bindings do not:
    # fragments are kept per backend, keyed on the files that backend reads.
    toy = tmp_path / "toy"
    shutil.copytree(TOY, toy)
    out = tmp_path / "out"
    argv = [*_argv(toy, out), "--derivatives", str(toy / "derivatives.yaml")]
    monkeypatch.setattr(emit, "_bindings_text", _counting_bindings)
    assert launcher.main(argv) == 0
    derivatives = toy / "derivatives.yaml"
    text = derivatives.read_text()
    assert "self: grad" in text
    derivatives.write_text(text.replace("self: grad", "self: grad * 1", 1))
    RENDERED.clear()
    assert launcher.main(argv) == 0
    assert RENDERED == []
    cold = tmp_path / "cold"
    assert launcher.main([*_argv(toy, cold), "--derivatives", str(derivatives)]) == 0
    assert _python_files(out) == _python_files(cold)
