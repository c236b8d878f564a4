"""Committing output sets: write-if-changed, stale files, dry runs, depfiles."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schemac.backends.output import (
    MANIFEST_NAME,
    GeneratedFile,
    commit,
    depfile_text,
    read_manifest,
    write_if_changed,
)

OLD = 1_000_000_000  # an mtime long ago, to see whether a file was rewritten


def _files(target: str = "schema", **texts: str) -> list[GeneratedFile]:
    return [
        GeneratedFile(name.replace("__", "/").replace("_h", ".h"), text, target=target)
        for name, text in sorted(texts.items())
    ]


def _age(out: Path) -> None:
    for path in out.rglob("*"):
        if path.is_file():
            os.utime(path, (OLD, OLD))


def _snapshot(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*") if p.is_file()}


def test_first_commit_creates_files_and_manifest(tmp_path: Path) -> None:
    out = tmp_path / "out"
    report = commit(_files(a_h="A\n", sub__b_h="B\n"), out, targets=["schema"])
    assert report.created == ("a.h", "sub/b.h")
    assert (out / "a.h").read_bytes() == b"A\n"
    assert (out / "sub/b.h").read_bytes() == b"B\n"
    assert read_manifest(out) == {"a.h": "schema", "sub/b.h": "schema"}
    # The staging directory next to OUT is gone.
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


def test_unchanged_files_keep_their_mtime(tmp_path: Path) -> None:
    out = tmp_path / "out"
    commit(_files(a_h="A\n", b_h="B\n"), out, targets=["schema"])
    _age(out)
    report = commit(_files(a_h="A\n", b_h="B2\n"), out, targets=["schema"])
    assert report.unchanged == ("a.h",)
    assert report.updated == ("b.h",)
    assert (out / "a.h").stat().st_mtime == OLD
    assert (out / "b.h").stat().st_mtime != OLD
    assert (out / MANIFEST_NAME).stat().st_mtime == OLD  # same file list: untouched
    assert (out / "b.h").read_text() == "B2\n"


def test_a_compile_that_changes_nothing_touches_nothing(tmp_path: Path) -> None:
    out = tmp_path / "out"
    commit(_files(a_h="A\n", d__b_h="B\n"), out, targets=["schema"])
    for path in (tmp_path, out, out / "d"):
        os.utime(path, (OLD, OLD))
    _age(out)
    report = commit(_files(a_h="A\n", d__b_h="B\n"), out, targets=["schema"])
    assert not report.changed
    for path in (tmp_path, out, out / "d", out / "a.h", out / MANIFEST_NAME):
        assert path.stat().st_mtime == OLD, path


def test_stale_files_of_compiled_targets_are_removed(tmp_path: Path) -> None:
    out = tmp_path / "out"
    commit(
        _files("schema", a_h="A", gone__old_h="old") + _files("python", py_h="P"),
        out,
        targets=["schema", "python"],
    )
    (out / "user_notes.h").write_text("mine")  # never generated: never touched
    report = commit(_files("schema", a_h="A"), out, targets=["schema"])
    assert report.removed == ("gone/old.h",)
    assert not (out / "gone").exists()  # emptied directories go too
    assert (out / "py.h").read_text() == "P"  # python was not compiled this time
    assert (out / "user_notes.h").read_text() == "mine"
    assert read_manifest(out) == {"a.h": "schema", "py.h": "python"}


def test_a_file_may_replace_a_directory_of_stale_files_and_back(tmp_path: Path) -> None:
    out = tmp_path / "out"
    commit([GeneratedFile("a/b.h", "1", target="schema")], out, targets=["schema"])
    report = commit([GeneratedFile("a", "2", target="schema")], out, targets=["schema"])
    assert (report.created, report.removed) == (("a",), ("a/b.h",))
    assert (out / "a").read_text() == "2"
    commit([GeneratedFile("a/b.h", "3", target="schema")], out, targets=["schema"])
    assert (out / "a/b.h").read_text() == "3"


def test_a_tampered_manifest_cannot_delete_outside_out(tmp_path: Path) -> None:
    out = tmp_path / "out"
    victim = tmp_path / "victim.h"
    victim.write_text("keep")
    out.mkdir()
    (out / MANIFEST_NAME).write_text("schema\t../victim.h\nschema\t/etc/hostname\ngarbage\n")
    report = commit(_files(a_h="A"), out, targets=["schema"])
    assert report.removed == ()
    assert victim.read_text() == "keep"


def test_stale_removal_refuses_symlinked_directories(tmp_path: Path) -> None:
    out, elsewhere = tmp_path / "out", tmp_path / "elsewhere"
    elsewhere.mkdir()
    commit(_files(link__x_h="x"), out, targets=["schema"])
    (out / "link" / "x.h").unlink()
    (out / "link").rmdir()
    (out / "link").symlink_to(elsewhere)
    (elsewhere / "x.h").write_text("not schemac's")
    before = _snapshot(out)
    with pytest.raises(OSError, match=r"out/link is a symbolic link"):
        commit(_files(a_h="A"), out, targets=["schema"])
    assert (elsewhere / "x.h").read_text() == "not schemac's"
    assert _snapshot(out) == before


def test_dry_run_reports_and_writes_nothing(tmp_path: Path) -> None:
    out = tmp_path / "out"
    commit(_files(a_h="A", b_h="B"), out, targets=["schema"])
    before = _snapshot(out)
    report = commit(_files(a_h="A2", c_h="C"), out, targets=["schema"], dry_run=True)
    assert report.lines() == ("update a.h", "remove b.h", "create c.h")
    assert "would change" in report.summary()
    assert _snapshot(out) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]
    fresh = tmp_path / "fresh"
    assert commit(_files(a_h="A"), fresh, targets=["schema"], dry_run=True).created == ("a.h",)
    assert not fresh.exists()


def test_depfile_lists_outputs_against_inputs(tmp_path: Path) -> None:
    text = depfile_text(["out/b.h", "out/a b.h"], ["in/native.yaml", "in/$tags#.yaml"])
    assert text == ("out/a\\ b.h \\\n  out/b.h: \\\n  in/$$tags\\#.yaml \\\n  in/native.yaml\n")
    depfile = tmp_path / "deps.d"
    assert write_if_changed(depfile, text)
    os.utime(depfile, (OLD, OLD))
    assert not write_if_changed(depfile, text)
    assert depfile.stat().st_mtime == OLD


@pytest.mark.parametrize("existing", [False, True])
def test_out_dir_is_untouched_if_staging_fails(tmp_path: Path, existing: bool) -> None:
    out = tmp_path / "out"
    if existing:
        commit(_files(a_h="A"), out, targets=["schema"])
    before = _snapshot(out) if existing else None

    class Exploding(GeneratedFile):
        @property
        def data(self) -> bytes:
            raise OSError("disk full")

    files = [GeneratedFile("a.h", "A2", target="schema"), Exploding("z.h", "Z", target="schema")]
    with pytest.raises(OSError, match="disk full"):
        commit(files, out, targets=["schema"])
    if existing:
        assert _snapshot(out) == before
    else:
        assert not out.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == (["out"] if existing else [])


def test_out_may_be_the_current_directory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "out"
    out.mkdir()
    monkeypatch.chdir(out)
    report = commit(_files(a_h="A"), Path("."), targets=["schema"])
    assert report.created == ("a.h",)
    assert (out / "a.h").read_text() == "A"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]
    assert sorted(p.name for p in out.iterdir()) == [MANIFEST_NAME, "a.h"]


def test_an_unreadable_manifest_removes_nothing(tmp_path: Path) -> None:
    out = tmp_path / "out"
    commit(_files(a_h="A", b_h="B"), out, targets=["schema"])
    (out / MANIFEST_NAME).write_bytes(b"\xff\xfe not utf-8")
    assert commit(_files(a_h="A"), out, targets=["schema"]).removed == ()
    assert (out / "b.h").exists()


_PATHS = st.sampled_from(["a.h", "b.h", "d/c.h", "d/e/f.h", "g.cpp"])
_RUN = st.tuples(
    st.sampled_from(["schema", "cpu"]),
    st.dictionaries(_PATHS, st.sampled_from(["1", "2", "3\n"]), max_size=4),
)


@settings(max_examples=40, deadline=None)
@given(st.lists(_RUN, min_size=1, max_size=6))
def test_any_sequence_of_runs_leaves_exactly_the_owned_files(tmp_path_factory, runs) -> None:
    out = tmp_path_factory.mktemp("runs") / "out"
    out.mkdir()
    (out / "user.txt").write_text("mine")
    owner: dict[str, tuple[str, str]] = {}  # path -> (target, text) expected on disk
    for target, texts in runs:
        # A path another target owns would be produced twice in a real compile;
        # a run only ever produces paths no other target currently owns.
        texts = {p: t for p, t in texts.items() if owner.get(p, (target,))[0] == target}
        files = [GeneratedFile(p, t, target=target) for p, t in sorted(texts.items())]
        commit(files, out, targets=[target])
        owner = {p: v for p, v in owner.items() if v[0] != target}
        owner.update({p: (target, t) for p, t in texts.items()})
        on_disk = {
            str(p.relative_to(out)): p.read_text()
            for p in out.rglob("*")
            if p.is_file() and p.name != MANIFEST_NAME
        }
        assert on_disk == {"user.txt": "mine", **{p: t for p, (_, t) in owner.items()}}
        assert read_manifest(out) == {p: tgt for p, (tgt, _) in owner.items()}
