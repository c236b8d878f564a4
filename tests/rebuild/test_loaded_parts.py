"""``OUT/.schemac-parts`` (:mod:`schemac.rebuild.loaded_parts`): parts come back only whole
and under the run key they were saved with, the file holds exactly the parts the last
compile used, and a compile over a damaged file writes what a cold one writes."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from out_trees import compile_argv, contents
from schemac import launcher
from schemac.frontend import native_loader, yaml_parts
from schemac.rebuild.loaded_parts import PARTS_NAME, LoadedParts

ROOT = Path(__file__).resolve().parents[2]
TOY = ROOT / "examples" / "toyops"


def _saved(out: Path, parts: dict[str, bytes], key: str = "run") -> None:
    store = LoadedParts(out, key)
    for name, data in parts.items():
        store.remember(name, lambda data=data: data)
    store.save()


def test_parts_come_back_under_their_run_key_only(tmp_path: Path) -> None:
    _saved(tmp_path, {"a": b"first", "b": b"\nsecond\n"})
    store = LoadedParts(tmp_path, "run")
    assert store.recall("a") == b"first" and store.recall("b") == b"\nsecond\n"
    assert store.recall("c") is None
    assert LoadedParts(tmp_path, "another run").recall("a") is None


def test_a_damaged_file_gives_back_only_whole_parts(tmp_path: Path) -> None:
    _saved(tmp_path, {"a": b"first", "b": b"second"})
    path = tmp_path / PARTS_NAME
    data = path.read_bytes()
    path.write_bytes(data[:-3])
    store = LoadedParts(tmp_path, "run")
    assert store.recall("a") == b"first" and store.recall("b") is None
    path.write_bytes(data.replace(b"first", b"firsT"))
    assert LoadedParts(tmp_path, "run").recall("a") is None
    for header in (b"", b"schemac-parts 1 run\n", b"schemac-parts 2 other\n", b"garbage"):
        path.write_bytes(header + data[data.index(b"\n") + 1 :])
        assert LoadedParts(tmp_path, "run").recall("a") is None
    # A damaged record line: the parts before it still count.
    path.write_bytes(data.replace(b"firstb ", b"firstb x"))
    store = LoadedParts(tmp_path, "run")
    assert store.recall("a") == b"first" and store.recall("b") is None


def test_the_file_holds_the_parts_of_the_last_run_and_is_kept_when_they_are_its_own(
    tmp_path: Path,
) -> None:
    _saved(tmp_path, {"a": b"first", "b": b"second"})
    path = tmp_path / PARTS_NAME
    store = LoadedParts(tmp_path, "run")
    assert store.recall("a") == b"first" and store.recall("b") == b"second"
    before = path.stat()
    store.save()
    assert path.stat().st_ino == before.st_ino  # all recalled, none new: not rewritten
    store = LoadedParts(tmp_path, "run")
    store.recall("b")
    store.remember("c", lambda: b"third")
    store.save()
    store = LoadedParts(tmp_path, "run")
    assert store.recall("a") is None  # not used by the last run
    assert store.recall("b") == b"second" and store.recall("c") == b"third"
    assert sorted(p.name for p in tmp_path.iterdir()) == [PARTS_NAME]


@pytest.fixture
def compiled_toy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path, list[str]]:
    """examples/toyops copied, in parts of four entries, compiled into OUT: (toy, OUT, argv)."""
    monkeypatch.setattr(yaml_parts, "PART_ITEMS", 4)
    toy = tmp_path / "toy"
    shutil.copytree(TOY, toy)
    out = tmp_path / "out"
    argv = compile_argv(toy, out, "headers,schema,cpu")
    assert launcher.main(argv) == 0
    return toy, out, argv


def test_a_compile_over_damaged_parts_writes_what_a_cold_one_writes(
    tmp_path: Path, compiled_toy: tuple[Path, Path, list[str]]
) -> None:
    toy, out, argv = compiled_toy
    parts = out / PARTS_NAME
    # One part per four entries, all of them clean.
    assert len(_records(parts)) == 7
    native = toy / "native_functions.yaml"
    for damage in ("truncated", "flipped", "removed"):
        if damage == "truncated":
            parts.write_bytes(parts.read_bytes()[:-100])
        elif damage == "flipped":
            data = bytearray(parts.read_bytes())
            data[-50] ^= 0xFF
            parts.write_bytes(bytes(data))
        else:
            parts.unlink()
        native.write_text(native.read_text() + f"# edited after the parts were {damage}\n")
        assert launcher.main(argv) == 0
        cold = tmp_path / f"cold-{damage}"
        assert launcher.main(compile_argv(toy, cold, "headers,schema,cpu")) == 0
        assert contents(out) == contents(cold)
        # The file was written again, whole.
        assert LoadedParts(out, _run_key(out)).recall(_first_key(parts)) is not None


def _run_key(out: Path) -> str:
    return (out / PARTS_NAME).read_bytes().split(b"\n", 1)[0].split(b" ")[2].decode()


def _records(parts: Path) -> list[str]:
    """The keys of the parts the file holds, read as the layout says."""
    data = parts.read_bytes()
    at, keys = data.index(b"\n") + 1, []
    while at < len(data):
        end = data.index(b"\n", at)
        key, size, _ = data[at:end].split(b" ")
        keys.append(key.decode())
        at = end + 1 + int(size)
    assert at == len(data)
    return keys


def _first_key(parts: Path) -> str:
    return _records(parts)[0]


def test_an_edit_recalls_every_part_it_did_not_touch(
    compiled_toy: tuple[Path, Path, list[str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The compile hands the loader the memo of the last run into OUT: after an
    edit of the last entry, every other part is recalled, none composed."""
    toy, _, argv = compiled_toy
    recalled: list[int] = []
    real = native_loader.unpickled_part

    def counted(data: bytes) -> object:
        found = real(data)
        recalled.append(0 if found is None else len(found))
        return found

    monkeypatch.setattr(native_loader, "unpickled_part", counted)
    native = toy / "native_functions.yaml"
    native.write_text(native.read_text() + "# an edit of the last part\n")
    assert launcher.main(argv) == 0
    # Seven parts of four entries (the last one shorter): six recalled whole.
    assert len(recalled) == 6 and all(count == 4 for count in recalled)


def test_an_interrupted_save_leaves_nothing_beside_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "out"
    out.mkdir()
    store = LoadedParts(out, "run")
    store.remember("a", lambda: b"first")

    def interrupted() -> bytes:
        raise KeyboardInterrupt

    store.remember("b", interrupted)
    with pytest.raises(KeyboardInterrupt):
        store.save()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]
    assert list(out.iterdir()) == []


def test_a_save_killed_midway_is_swept_by_the_next_compile(
    tmp_path: Path, compiled_toy: tuple[Path, Path, list[str]]
) -> None:
    # kill -9 runs no `finally`: what a killed save left beside OUT is one of
    # schemac's leftovers (backends/output/lock.py), removed by the next compile.
    toy, out, argv = compiled_toy
    left = out.with_name(f".{out.name}{PARTS_NAME}-99999")
    left.write_bytes(b"schemac-parts 3 half a file")
    native = toy / "native_functions.yaml"
    native.write_text(native.read_text() + "# an edit\n")
    assert launcher.main(argv) == 0
    assert not left.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out", "toy"]
