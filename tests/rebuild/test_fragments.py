"""Fragment reuse (Note [Fragment reuse]): pieces of aggregate files rendered once per
input, kept beside the state, and never trusted when damaged or from another context."""

from __future__ import annotations

import itertools
import mmap
import os
import shutil
import time
from pathlib import Path

import pytest

from fragment_store import MemoryStore
from out_trees import compile_argv
from schemac import launcher
from schemac.backends.buckets import bucket_of
from schemac.backends.declarations import backend as declarations
from schemac.backends.reuse import Fragments
from schemac.rebuild import fragments
from schemac.rebuild.fragments import (
    FRAGMENTS_NAME,
    TAIL_NAME,
    FragmentWriter,
    Segment,
    StoredFragments,
    Trust,
)

ROOT = Path(__file__).resolve().parents[2]
TOY = ROOT / "examples" / "toyops"

#: How often the declarations entry render ran (see _counting_entry).
RENDERS: list[str] = []


def _counting_entry(context: object, inputs: tuple[object, ...]) -> str:
    RENDERS.append("x")
    return _REAL_ENTRY(context, inputs)  # type: ignore[arg-type]


_REAL_ENTRY = declarations._entry


def _bucket_mates(declared: bytes, names: set[str]) -> int:
    """How many entries of ``declared`` (a Declarations.yaml) share a bucket with an
    operator of ``names``: the entries an edit of those renders again (Note
    [Fragment buckets])."""
    lines = declared.decode().split("\n")
    entries = [
        op.removeprefix("  operator_name: ")
        + ("" if overload == '  overload_name: ""' else "." + overload.split(": ")[1])
        for op, overload in itertools.pairwise(lines)
        if op.startswith("  operator_name: ")
    ]
    changed = {bucket_of(name) for name in entries if name.split(".")[0] in names}
    return sum(bucket_of(name) in changed for name in entries)


def _render_twice(context: object, inputs: object) -> str:
    return f"{inputs}|{inputs}"


def test_without_a_store_every_piece_is_rendered() -> None:
    assert Fragments().text(_render_twice, ("a", 1)) == "('a', 1)|('a', 1)"


def test_a_stored_piece_is_used_for_equal_inputs_only() -> None:
    first = MemoryStore()
    assert Fragments(first, "t").text(_render_twice, "a") == "a|a"
    ((key, text),) = first.remembered.items()
    assert text == "a|a"
    # What the store holds is returned as is: the render does not run.
    second = MemoryStore({key: "from the last run"})
    assert Fragments(second, "t").text(_render_twice, "a") == "from the last run"
    assert Fragments(second, "t").text(_render_twice, "b") == "b|b"
    # Another target's store entry is not this target's.
    assert Fragments(second, "u").text(_render_twice, "a") == "a|a"


def test_a_closure_cannot_render_a_piece() -> None:
    hidden = "captured"

    def render(context: object, inputs: object) -> str:
        return hidden

    with pytest.raises(TypeError, match="module-level function"):
        Fragments(MemoryStore(), "t").text(render, "a")


def _context(unit: str) -> str:
    return f"ctx-of-{unit.replace('/', '-')}"


def _fresh_store(out: Path) -> tuple[Segment, ...]:
    writer = FragmentWriter(str(out))
    writer.add("t", "k1", "first\n")
    writer.add("t", "k2", "sécond \udcff")
    writer.add("u", "k1", "")
    segments = writer.commit(str(out), _context)
    assert segments is not None
    return segments


def test_the_file_round_trips_and_a_damaged_one_is_empty(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    stored = _fresh_store(out)
    assert [p.name for p in tmp_path.iterdir()] == ["out"]  # no temporary left beside OUT
    assert stored[0].contexts == (("t", "ctx-of-t"), ("u", "ctx-of-u"))
    found = StoredFragments(str(out), stored)
    assert found.get("t", "ctx-of-t", "k2") == "sécond \udcff"
    assert found.get("u", "ctx-of-u", "k1") == ""
    assert found.get("u", "ctx-of-u", "k2") is None
    # A record answers only in the context it was rendered in.
    assert found.get("t", "another context", "k1") is None
    data = (out / FRAGMENTS_NAME).read_bytes()
    (out / FRAGMENTS_NAME).write_bytes(data[:-3])
    assert StoredFragments(str(out), stored).get("t", "ctx-of-t", "k1") is None
    (out / FRAGMENTS_NAME).write_bytes(data.replace(b"first", b"First"))
    assert StoredFragments(str(out), stored).get("t", "ctx-of-t", "k1") is None
    # A tail no state lists (a killed compile's) is not read.
    (out / FRAGMENTS_NAME).write_bytes(data + b"12 garbage")
    assert StoredFragments(str(out), stored).get("t", "ctx-of-t", "k1") == "first\n"


def test_an_appending_compile_adds_one_segment_in_place(tmp_path: Path) -> None:
    """Note [Fragment segments]: what the last compiles stored stays, byte for byte;
    the new segment goes to the tail."""
    out = tmp_path / "out"
    out.mkdir()
    first = _fresh_store(out)
    before = (out / FRAGMENTS_NAME).read_bytes()
    inode = (out / FRAGMENTS_NAME).stat().st_ino
    stored = StoredFragments(str(out), first)
    assert stored.get("t", "ctx-of-t", "k1") == "first\n"
    writer = FragmentWriter(str(out), stored)
    writer.add("t", "k3", "third")
    segments = writer.commit(str(out), _context)
    assert segments is not None and segments[:1] == first and len(segments) == 2
    assert segments[1].contexts == (("t", "ctx-of-t"),) and segments[1].tail
    assert (out / FRAGMENTS_NAME).read_bytes() == before
    assert (out / FRAGMENTS_NAME).stat().st_ino == inode
    tail = (out / TAIL_NAME).read_bytes()
    again = StoredFragments(str(out), segments)
    assert again.get("t", "ctx-of-t", "k3") == "third"
    assert again.get("t", "ctx-of-t", "k2") == "sécond \udcff"
    # The next append goes after it, in place.
    writer = FragmentWriter(str(out), again)
    writer.add("u", "k4", "fourth")
    third = writer.commit(str(out), _context)
    assert third is not None and third[:2] == segments and third[2].tail
    assert (out / TAIL_NAME).read_bytes().startswith(tail)
    last = StoredFragments(str(out), third)
    assert last.get("u", "ctx-of-u", "k4") == "fourth"
    assert last.get("t", "ctx-of-t", "k3") == "third"
    # A damaged tail is not trusted (it is always hashed).
    (out / TAIL_NAME).write_bytes(tail.replace(b"third", b"Third"))
    assert StoredFragments(str(out), third).get("t", "ctx-of-t", "k1") is None


def test_a_failed_append_leaves_the_store_as_it_was(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    first = _fresh_store(out)
    before = (out / FRAGMENTS_NAME).read_bytes()
    (out / TAIL_NAME).write_bytes(b"a killed compile's tail")
    writer = FragmentWriter(str(out), StoredFragments(str(out), first))
    writer.add("t", "k3", "third")
    writer.discard()
    assert (out / FRAGMENTS_NAME).read_bytes() == before
    assert (out / TAIL_NAME).read_bytes() == b""


def test_garbage_past_its_share_is_compacted_away(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(fragments, "COMPACT_FROM_BYTES", 0)
    out = tmp_path / "out"
    out.mkdir()
    stored = StoredFragments(str(out), _fresh_store(out))
    assert stored.get("t", "ctx-of-t", "k2") is not None  # used; k1 and u's k1 are not
    writer = FragmentWriter(str(out), stored)
    writer.add("t", "k3", "third")
    segments = writer.commit(str(out), _context)
    assert segments is not None and len(segments) == 1 and not segments[0].tail
    assert [p.name for p in tmp_path.iterdir()] == ["out"]
    assert not (out / TAIL_NAME).exists()
    compacted = StoredFragments(str(out), segments)
    assert compacted.get("t", "ctx-of-t", "k2") == "sécond \udcff"
    assert compacted.get("t", "ctx-of-t", "k3") == "third"
    assert compacted.get("t", "ctx-of-t", "k1") is None
    assert compacted.total < stored.total + len("third") + 10


def test_a_mapped_base_keeps_its_records_when_a_compaction_replaces_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Note [The base is mapped, not read]: the base is mapped, not copied, and a
    fresh base is renamed over it, so what a compile mapped stays readable (a
    base rewritten in place would change, or fault, the mapped pages)."""
    monkeypatch.setattr(fragments, "COMPACT_FROM_BYTES", 0)
    out = tmp_path / "out"
    out.mkdir()
    stored = StoredFragments(str(out), _fresh_store(out))
    assert stored.get("t", "ctx-of-t", "k2") == "sécond \udcff"
    assert isinstance(stored._base, mmap.mmap)
    inode = (out / FRAGMENTS_NAME).stat().st_ino
    writer = FragmentWriter(str(out), stored)
    writer.add("t", "k3", "third")
    segments = writer.commit(str(out), _context)
    assert segments is not None and len(segments) == 1  # compacted: a fresh base
    assert (out / FRAGMENTS_NAME).stat().st_ino != inode
    # The old mapping still answers with the old file's bytes.
    assert stored.get("t", "ctx-of-t", "k1") == "first\n"
    assert stored.get("t", "ctx-of-t", "k2") == "sécond \udcff"
    assert StoredFragments(str(out), segments).get("t", "ctx-of-t", "k3") == "third"


def _argv(toy: Path, out: Path) -> list[str]:
    return compile_argv(toy, out, "declarations,cpu")


def _flip_default(toy: Path) -> None:
    path = toy / "native_functions.yaml"
    text = path.read_text()
    assert "float high=1.0) -> Tensor\n" in text
    path.write_text(text.replace("float high=1.0) -> Tensor\n", "float high=2.0) -> Tensor\n", 1))


def _cold(toy: Path, where: Path) -> bytes:
    assert launcher.main(_argv(toy, where)) == 0
    return (where / "ATen" / "Declarations.yaml").read_bytes()


def test_an_edit_renders_only_the_edited_entries_and_matches_a_cold_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    toy = tmp_path / "toy"
    shutil.copytree(TOY, toy)
    out = tmp_path / "out"
    monkeypatch.setattr(declarations, "_entry", _counting_entry)
    assert launcher.main(_argv(toy, out)) == 0
    entries = len(RENDERS)
    assert entries > 20 and (out / FRAGMENTS_NAME).is_file()

    RENDERS.clear()
    _flip_default(toy)
    assert launcher.main(_argv(toy, out)) == 0
    declared = (out / "ATen" / "Declarations.yaml").read_bytes()
    # clamp_range and its autogen'd out= variant are the entries whose inputs
    # changed: only their buckets are rendered.
    assert declared.count(b"operator_name: clamp_range\n") == 2
    assert 2 <= len(RENDERS) == _bucket_mates(declared, {"clamp_range"}) < entries
    assert declared == _cold(toy, tmp_path / "cold1")

    # A truncated cache is not trusted: everything is rendered, and right.
    data = (out / FRAGMENTS_NAME).read_bytes()
    (out / FRAGMENTS_NAME).write_bytes(data[: len(data) // 2])
    RENDERS.clear()
    path = toy / "native_functions.yaml"
    path.write_text(path.read_text() + "\n# a comment\n")
    assert launcher.main(_argv(toy, out)) == 0
    assert len(RENDERS) == entries
    assert (out / "ATen" / "Declarations.yaml").read_bytes() == declared
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cold1", "out", "toy"]


def test_a_reused_target_keeps_its_fragments_for_the_next_edit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    toy = tmp_path / "toy"
    shutil.copytree(TOY, toy)
    out = tmp_path / "out"
    argv = [*_argv(toy, out), "--derivatives", str(toy / "derivatives.yaml")]
    argv[argv.index("declarations,cpu")] = "declarations,autograd"
    monkeypatch.setattr(declarations, "_entry", _counting_entry)
    RENDERS.clear()
    assert launcher.main(argv) == 0
    entries = len(RENDERS)
    # An edit of derivatives.yaml only: declarations is reused, not emitted...
    path = toy / "derivatives.yaml"
    path.write_text(path.read_text() + "\n# a comment\n")
    RENDERS.clear()
    assert launcher.main(argv) == 0
    assert RENDERS == []
    # ...and its fragments were carried over: the next edit renders only the
    # buckets of the edited entries.
    _flip_default(toy)
    assert launcher.main(argv) == 0
    declared = (out / "ATen" / "Declarations.yaml").read_bytes()
    assert 2 <= len(RENDERS) == _bucket_mates(declared, {"clamp_range"}) < entries


def _hashes(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The sizes of what the store's reader hashes from now on."""
    sizes: list[int] = []
    real = fragments.hex_of

    def counting(data: bytes | memoryview) -> str:
        sizes.append(len(data))
        return real(data)

    monkeypatch.setattr(fragments, "hex_of", counting)
    return sizes


def test_a_vouched_base_goes_unhashed_until_it_changes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Note [A settled base goes unhashed]."""
    out = tmp_path / "out"
    out.mkdir()
    segments = _fresh_store(out)
    base = out / FRAGMENTS_NAME
    # Its times a second old, then a clock tick for the ctime that sets to pass.
    info = base.stat()
    os.utime(base, ns=(info.st_atime_ns, info.st_mtime_ns - 1_000_000_000))
    time.sleep(0.05)
    hashed = _hashes(monkeypatch)
    # Read while racy (nothing is settled before the last state): hashed, not offered.
    racy = StoredFragments(str(out), segments, Trust(None, settled_before=0))
    assert racy.get("t", "ctx-of-t", "k1") == "first\n" and racy.base_stat is None
    assert hashed == [segments[0].size]
    # Read when settled: hashed, and offered to the state to vouch for.
    settled = StoredFragments(str(out), segments, Trust(None, settled_before=time.time_ns()))
    assert settled.get("t", "ctx-of-t", "k1") == "first\n"
    vouched = settled.base_stat
    assert vouched is not None and vouched[0] == segments[0].size
    # Vouched for and unchanged: not hashed, and offered again.
    hashed.clear()
    trusted = StoredFragments(str(out), segments, Trust(vouched, settled_before=0))
    assert trusted.get("t", "ctx-of-t", "k2") == "sécond \udcff"
    assert hashed == [] and trusted.base_stat == vouched
    # The same size and mtime, other bytes (the mtime set back by hand): the
    # ctime differs, so the base is hashed and refused.
    info = base.stat()
    base.write_bytes(base.read_bytes().replace(b"first", b"First"))
    os.utime(base, ns=(info.st_atime_ns, info.st_mtime_ns))
    assert base.stat().st_size == info.st_size
    damaged = StoredFragments(str(out), segments, Trust(vouched, settled_before=0))
    assert damaged.get("t", "ctx-of-t", "k1") is None and hashed == [segments[0].size]
    assert not damaged.valid and damaged.base_stat is None


def _state_lines(out: Path, kind: str) -> list[str]:
    return [
        line for line in (out / ".schemac-state").read_text().split("\n") if line.startswith(kind)
    ]


def test_a_compile_vouches_for_the_base_it_checked_and_a_changed_one_is_rebuilt(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    toy = tmp_path / "toy"
    shutil.copytree(TOY, toy)
    out = tmp_path / "out"
    monkeypatch.setattr(declarations, "_entry", _counting_entry)
    RENDERS.clear()
    assert launcher.main(_argv(toy, out)) == 0
    entries = len(RENDERS)
    assert _state_lines(out, "fstat") == []  # it wrote the base: the next run hashes it
    path = toy / "native_functions.yaml"
    for edit in (_flip_default, lambda toy: path.write_text(path.read_text() + "\n# one\n")):
        time.sleep(0.05)
        edit(toy)
        assert launcher.main(_argv(toy, out)) == 0
    # The base is checked, settled and unchanged: vouched for; the edits went to the tail.
    (vouched,) = _state_lines(out, "fstat")
    base = out / FRAGMENTS_NAME
    assert vouched.split(" ")[1:3] == [str(base.stat().st_size), str(base.stat().st_mtime_ns)]
    assert (out / TAIL_NAME).stat().st_size > 0
    declared = (out / "ATen" / "Declarations.yaml").read_bytes()
    # Damaged with its size and mtime kept: not trusted, every entry rendered again.
    info = base.stat()
    data = base.read_bytes()
    position = data.index(b"operator_name: ") + len(b"operator_name: ")
    base.write_bytes(data[:position] + b"X" + data[position + 1 :])
    os.utime(base, ns=(info.st_atime_ns, info.st_mtime_ns))
    RENDERS.clear()
    path.write_text(path.read_text() + "\n# two\n")
    assert launcher.main(_argv(toy, out)) == 0
    assert len(RENDERS) == entries
    assert (out / "ATen" / "Declarations.yaml").read_bytes() == declared


def test_a_base_hashed_in_a_thread_is_checked_as_a_read_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Note [The base hashed beside the passes]: the thread's digests stand in for
    the reader's own only for the file they were taken of."""
    out = tmp_path / "out"
    out.mkdir()
    segments = _fresh_store(out)
    hashed = _hashes(monkeypatch)
    early = StoredFragments(str(out), segments)
    early.hash_base_soon()
    assert early.get("t", "ctx-of-t", "k1") == "first\n"
    assert hashed == [segments[0].size]  # once, by the thread
    # Damaged before the thread ran: refused.
    base = out / FRAGMENTS_NAME
    data = base.read_bytes()
    base.write_bytes(data.replace(b"first", b"First"))
    damaged = StoredFragments(str(out), segments)
    damaged.hash_base_soon()
    assert damaged.get("t", "ctx-of-t", "k1") is None
    # Damaged after the thread hashed the good bytes: the stat differs, so the
    # reader hashes again and refuses it.
    base.write_bytes(data)
    late = StoredFragments(str(out), segments)
    late.hash_base_soon()
    assert late._prehash is not None and late._prehash.digests(_stat(base)) is not None
    hashed.clear()  # the thread is done: from here on, only the reader hashes
    base.write_bytes(data.replace(b"first", b"First"))
    # (its mtime moved a second on: two writes within one clock tick may share it)
    info = base.stat()
    os.utime(base, ns=(info.st_atime_ns, info.st_mtime_ns + 1_000_000_000))
    assert late.get("t", "ctx-of-t", "k1") is None
    assert hashed == [segments[0].size]


def _stat(path: Path) -> tuple[int, int, int, int]:
    info = path.stat()
    return (info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino)
