"""Staging in a helper process: the same outcome as staging in this one."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest

from schemac.backends.output import GeneratedFile, commit
from schemac.backends.output.background import (
    HELPER_THRESHOLD,
    BackgroundStager,
    StagerOnDemand,
    can_fork,
)
from schemac.backends.output.staging import UNCHANGED, UPDATED

pytestmark = pytest.mark.skipif(not can_fork(), reason="needs os.fork")


def _files(count: int = 50, change: int = -1) -> list[GeneratedFile]:
    files = [
        GeneratedFile(f"dir{i % 3}/file{i}.h", f"// {i}\n" * (i + 1), target="headers")
        for i in range(count)
    ]
    # One file bigger than the pipe's buffer, so it crosses in several reads
    # (and, bigger than a batch, is sent without joining, between small ones).
    files.insert(count // 2, GeneratedFile("big.cpp", "x" * (3 << 20) + "\n", target="headers"))
    if change >= 0:
        files[change] = GeneratedFile(files[change].path, "changed\n", target="headers")
    return files


def _tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*") if p.is_file()}


def _stage_in_helper(files: list[GeneratedFile], out: Path) -> BackgroundStager:
    helper = BackgroundStager(out)
    for file in files:
        helper.add(file.path, file.data)
    return helper


def test_first_compile_matches_staging_in_process(tmp_path: Path) -> None:
    files = _files()
    helper = _stage_in_helper(files, tmp_path / "a")
    report = commit(files, tmp_path / "a", targets=["headers"], staged=helper.result())
    expected = commit(files, tmp_path / "b", targets=["headers"])
    assert len(report.created) == len(files)
    assert (report.created, report.updated, report.unchanged) == (
        expected.created,
        expected.updated,
        expected.unchanged,
    )
    assert _tree(tmp_path / "a") == _tree(tmp_path / "b")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a", "b"]  # no staging left


def test_rerun_compares_with_out_and_stages_only_changes(tmp_path: Path) -> None:
    out = tmp_path / "out"
    commit(_files(), out, targets=["headers"])
    files = _files(change=7)
    staged = _stage_in_helper(files, out).result()
    assert staged.status["dir1/file7.h"] == UPDATED
    assert sum(1 for s in staged.status.values() if s == UNCHANGED) == len(files) - 1
    report = commit(files, out, targets=["headers"], staged=staged)
    assert report.updated == ("dir1/file7.h",)
    assert (out / "dir1/file7.h").read_text() == "changed\n"


def test_the_helper_reports_the_digest_of_every_file_staged_or_unchanged(tmp_path: Path) -> None:
    out = tmp_path / "out"
    commit(_files(), out, targets=["headers"])
    files = _files(change=7)
    staged = _stage_in_helper(files, out).result()
    assert staged.digests == {f.path: hashlib.sha256(f.data).hexdigest() for f in files}


def test_nothing_changed_creates_no_staging_directory(tmp_path: Path) -> None:
    out = tmp_path / "out"
    commit(_files(), out, targets=["headers"])
    before = os.stat(tmp_path).st_mtime_ns
    staged = _stage_in_helper(_files(), out).result()
    assert staged.staging is None
    assert commit(_files(), out, targets=["headers"], staged=staged).changed is False
    assert os.stat(tmp_path).st_mtime_ns == before


def test_discard_removes_what_the_helper_staged(tmp_path: Path) -> None:
    helper = _stage_in_helper(_files(), tmp_path / "out")
    helper.discard()
    helper.discard()  # a second call is harmless
    assert list(tmp_path.iterdir()) == []


def test_a_staging_failure_is_an_os_error_and_leaves_nothing(tmp_path: Path) -> None:
    # "a" is staged as a file, so "a/b.h" cannot be: the helper fails and says why.
    helper = _stage_in_helper(
        [GeneratedFile("a", "1\n"), GeneratedFile("a/b.h", "2\n"), *_files(5)], tmp_path / "out"
    )
    with pytest.raises(OSError, match="a"):
        helper.result()
    helper.discard()
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("count", [HELPER_THRESHOLD - 1, HELPER_THRESHOLD + 10])
def test_the_helper_starts_only_for_enough_files(tmp_path: Path, count: int) -> None:
    files = _files(count - 1)  # _files adds one big file
    assert len(files) == count
    stager = StagerOnDemand(tmp_path / "out")
    for file in files:
        stager.add(file.path, file.data)
    assert stager.started == (count >= HELPER_THRESHOLD)
    staged = stager.result()
    assert (staged is not None) == stager.started
    # Either way the commit is the one of an in-line compile.
    report = commit(files, tmp_path / "out", targets=["headers"], staged=staged)
    assert len(report.created) == count
    written = {p: d for p, d in _tree(tmp_path / "out").items() if not p.startswith(".")}
    assert written == {f.path: f.data for f in files}
