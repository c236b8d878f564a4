"""Note [Texts handed over]: files are staged as they are emitted (in each share of a
split ``-j 2``), the texts dropped and digests recorded instead."""

from __future__ import annotations

from pathlib import Path

import pytest

from schemac.backends import split
from schemac.backends.driver import compile_to_directory
from schemac.backends.forked import can_fork
from schemac.backends.output import staging
from schemac.digests import hex_of
from schemac.frontend.loader import load_module
from schemac.ir.module import Module
from schemac.passes.manager import run_pipeline
from schemac.rebuild import state

ROOT = Path(__file__).resolve().parents[2]
TOY = ROOT / "examples" / "toyops"
TARGETS = ["headers", "schema", "cpu"]

pytestmark = pytest.mark.skipif(not can_fork(), reason="needs os.fork")


@pytest.fixture(scope="module")
def toy_module() -> Module:
    module = load_module(TOY / "native_functions.yaml", TOY / "tags.yaml")
    return run_pipeline(module).module


def _tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*") if p.is_file()}


def test_both_shares_stage_the_bytes_and_report_their_digests(
    toy_module: Module, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Split even a toy compile: the two processes take the emit calls in turn.
    monkeypatch.setattr(split, "PIN_TO_CHILD", lambda unit: unit.position % 2 == 1)
    two = compile_to_directory(toy_module, TARGETS, tmp_path / "two", jobs=2)
    one = compile_to_directory(toy_module, TARGETS, tmp_path / "one", jobs=1)
    assert _tree(tmp_path / "one") == _tree(tmp_path / "two")
    assert len(two.files) > 20 and [f.path for f in one.files] == [f.path for f in two.files]
    # Every file was staged by the share that made it: no text is kept.
    assert all(f.text == "" and f.target for f in two.files)
    written = tmp_path / "two"
    assert two.digests == {f.path: hex_of((written / f.path).read_bytes()) for f in two.files}
    assert one.digests == two.digests and all(f.text == "" and f.target for f in one.files)


def test_a_dry_run_keeps_every_text(
    toy_module: Module, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Nothing is staged in a dry run: the child's texts come back for the comparison."""
    monkeypatch.setattr(split, "PIN_TO_CHILD", lambda unit: unit.position % 2 == 1)
    result = compile_to_directory(toy_module, TARGETS, tmp_path / "out", jobs=2, dry_run=True)
    assert result.digests == {} and all(f.text for f in result.files)
    assert not (tmp_path / "out").exists()


def test_a_racy_file_is_recorded_with_the_digest_given(tmp_path: Path) -> None:
    """The no-op record hashes what schemac meant to write, given as bytes or as a digest."""
    (tmp_path / "a.h").write_text("int a;\n")
    (tmp_path / "b.h").write_text("int b;\n")
    digest = hex_of(b"int b;\n")
    meant = {"a.h": b"int a;\n", "b.h": digest}
    body = state._body(
        tmp_path, 0, [], {}, [("a.h", "headers", ""), ("b.h", "headers", "")], [], meant.get, {}, {}
    )
    assert body is not None
    records = dict(line.rsplit("\t", 1)[::-1] for line in body.splitlines())
    assert records["a.h"].split()[5] == hex_of(b"int a;\n")
    assert records["b.h"].split()[5] == digest
    assert state._check_body(str(tmp_path), f"files 2\n{body}") == 2


def test_a_racy_file_found_unchanged_unhashed_is_not_recorded(tmp_path: Path) -> None:
    """Note [Settled files go unhashed]: with no digest of the intended bytes, a
    racy file is never recorded with what is on disk; a settled one needs none."""
    (tmp_path / "a.h").write_text("int a;\n")
    outputs = [("a.h", "headers", "")]
    unhashed = {"a.h": staging.UNHASHED}.get
    assert state._body(tmp_path, 0, [], {}, outputs, [], unhashed, {}, {}) is None
    settled = state._body(tmp_path, 1 << 62, [], {}, outputs, [], unhashed, {}, {})
    assert settled is not None and settled.split()[5] == "-"


def test_only_files_found_unchanged_with_settled_times_go_unhashed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    big = "x" * staging.TEXT_CHUNK
    out = tmp_path / "out"
    out.mkdir()
    for name, text in (("same.h", "int a;\n"), ("big.h", big), ("other.h", "old\n")):
        (out / name).write_text(text)

    def staged() -> dict[str, str]:
        stager = staging.InlineStager(str(out))
        stager.add_text("same.h", "int a;\n")
        stager.add_text("big.h", big)
        stager.add_text("other.h", "new\n")
        stager.add_text("new.h", "int n;\n")
        result = stager.result()
        stager.discard()
        return result.digests

    hashed = {
        "same.h": hex_of(b"int a;\n"),
        "big.h": hex_of(big.encode()),
        "other.h": hex_of(b"new\n"),
        "new.h": hex_of(b"int n;\n"),
    }
    assert staged() == hashed  # just written: not settled
    monkeypatch.setattr(staging, "SETTLED_NS", -(1 << 62))  # any time is settled
    unchanged = {"same.h": staging.UNHASHED, "big.h": staging.UNHASHED}
    assert staged() == {**hashed, **unchanged}  # written or new files are still hashed


def test_in_line_staging_writes_a_batch_once_it_is_full(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """-j 1 holds at most about one batch of bytes; a failed compile removes what it staged."""
    monkeypatch.setattr(staging, "INLINE_BATCH", 10)
    stager = staging.InlineStager(str(tmp_path / "out"))
    assert stager.add("a.h", b"12345") == ["a.h"]
    assert list(tmp_path.iterdir()) == []  # held: the batch is not full
    assert stager.add("b/c.h", b"678901") == ["b/c.h"]
    (staged,) = tmp_path.iterdir()  # a staging directory beside OUT, with both files
    assert (staged / "a.h").read_bytes() == b"12345"
    assert (staged / "b" / "c.h").read_bytes() == b"678901"
    stager.add("d.h", b"x")
    result = stager.result()
    assert result.staging == str(staged) and (staged / "d.h").read_bytes() == b"x"
    assert result.digests == {
        p: hex_of(d) for p, d in (("a.h", b"12345"), ("b/c.h", b"678901"), ("d.h", b"x"))
    }
    stager.discard()
    assert list(tmp_path.iterdir()) == []


def _digest(data: bytes) -> str:
    return hex_of(data)


@pytest.mark.parametrize("size", [staging.TEXT_CHUNK, 3 * staging.TEXT_CHUNK + 17])
def test_a_large_text_is_staged_in_chunks_as_its_bytes_would_be(
    tmp_path: Path, size: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Note [Large texts staged in chunks]: same bytes, digest and status as ``add``."""
    text = "".join(chr(65 + i % 26) for i in range(size - 1)) + "\n"
    out = tmp_path / "out"
    first = staging.InlineStager(str(out))
    encoded: list[int] = []
    monkeypatch.setattr(staging, "write_new_file", lambda p, d: encoded.append(len(d)))
    assert first.add_text("big.txt", text) == ["big.txt"]
    assert encoded == []  # never encoded whole
    staged = first.result()
    assert staged.status == {"big.txt": staging.CREATED}
    assert staged.staging is not None
    assert Path(staged.staging, "big.txt").read_bytes() == text.encode()
    assert staged.digests == {"big.txt": _digest(text.encode())}
    out.mkdir()
    Path(staged.staging, "big.txt").rename(out / "big.txt")
    # OUT holds it: unchanged, nothing staged.
    again = staging.InlineStager(str(out))
    again.add_text("big.txt", text)
    assert again.result().status == {"big.txt": staging.UNCHANGED}
    assert again.result().digests == {"big.txt": _digest(text.encode())}
    # One byte changed, or one more byte on disk: updated.
    for on_disk in (text[:-2] + "?\n", text + "x"):
        (out / "big.txt").write_text(on_disk)
        changed = staging.InlineStager(str(out))
        changed.add_text("big.txt", text)
        result = changed.result()
        assert result.status == {"big.txt": staging.UPDATED}
        assert result.staging is not None
        assert Path(result.staging, "big.txt").read_bytes() == text.encode()
        changed.discard()


def test_small_and_non_ascii_texts_are_staged_whole(tmp_path: Path) -> None:
    stager = staging.InlineStager(str(tmp_path / "out"))
    wide = "é" * staging.TEXT_CHUNK
    stager.add_text("small.txt", "tiny\n")
    stager.add_text("wide.txt", wide)
    result = stager.result()
    assert result.staging is not None
    assert Path(result.staging, "wide.txt").read_bytes() == wide.encode()
    assert result.digests["wide.txt"] == _digest(wide.encode())
    assert result.digests["small.txt"] == _digest(b"tiny\n")
