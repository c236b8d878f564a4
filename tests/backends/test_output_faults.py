"""Faults while committing: a crash or an error at every step leaves the old tree or the new one.

The commit is driven step by step here by failing ``os.replace`` (the only
call that changes OUT after the commit point) at its k-th call for every k:

* an ``OSError`` (a read-only directory, a file system's refusal) must be
  undone at once: OUT is the old tree, byte for byte, and nothing is left
  beside it;
* a crash (an exception no handler catches, standing in for ``kill -9``)
  leaves a journal; :func:`recover` (what the next compile runs first) must
  turn OUT into the new tree.

tests/test_output_kill.py does the same with ``kill -9`` on real compiles.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import threading
import time
from pathlib import Path

import pytest

from schemac.backends.output import MANIFEST_NAME, GeneratedFile, commit
from schemac.backends.output.journal import CommitError, recover
from schemac.backends.output.lock import OutPlaces, output_lock

OLD = 1_000_000_000

OLD_TREE = {"a.h": "A1", "keep.h": "K", "d/b.h": "B1", "d/e/gone.h": "G", "x/y.h": "Y"}
NEW_TREE = {"a.h": "A2", "keep.h": "K", "d/b.h": "B2", "d/new.h": "N", "x": "X now a file"}


def _files(tree: dict[str, str]) -> list[GeneratedFile]:
    return [GeneratedFile(p, t, target="schema") for p, t in sorted(tree.items())]


def _snapshot(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in root.rglob("*")
        if p.is_file() and p.name != MANIFEST_NAME
    }


def _expected(tree: dict[str, str]) -> dict[str, bytes]:
    return {p: t.encode() for p, t in tree.items()}


def _beside(out: Path) -> list[str]:
    return sorted(p.name for p in out.parent.iterdir() if p.name != out.name)


class _Crash(BaseException):
    """Not an OSError: nothing in the commit catches it, as nothing survives kill -9."""


def _failing_replace(monkeypatch: pytest.MonkeyPatch, at: int, error: BaseException) -> None:
    real = os.replace
    calls = [0]

    def replace(src: object, dst: object) -> None:
        calls[0] += 1
        if calls[0] == at:
            raise error
        real(src, dst)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "replace", replace)


def _count_replaces(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> int:
    out = tmp_path / "count" / "out"
    commit(_files(OLD_TREE), out, targets=["schema"])
    calls = [0]
    real = os.replace

    def replace(src: object, dst: object) -> None:
        calls[0] += 1
        real(src, dst)  # type: ignore[arg-type]

    with monkeypatch.context() as patch:
        patch.setattr(os, "replace", replace)
        commit(_files(NEW_TREE), out, targets=["schema"])
    assert _snapshot(out) == _expected(NEW_TREE)
    return calls[0]


def test_an_error_at_any_step_of_the_moves_leaves_the_old_tree(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    steps = _count_replaces(tmp_path, monkeypatch)
    assert steps >= 8  # removals, updates and the manifest each move something
    for at in range(1, steps + 1):
        out = tmp_path / f"err{at}" / "out"
        commit(_files(OLD_TREE), out, targets=["schema"])
        with monkeypatch.context() as patch:
            _failing_replace(patch, at, PermissionError(13, "Permission denied"))
            with pytest.raises(CommitError, match="unchanged"):
                commit(_files(NEW_TREE), out, targets=["schema"])
        assert _snapshot(out) == _expected(OLD_TREE), at
        assert _beside(out) == [], at


def test_a_crash_at_any_step_is_finished_by_the_next_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    steps = _count_replaces(tmp_path, monkeypatch)
    for at in range(1, steps + 1):
        out = tmp_path / f"crash{at}" / "out"
        commit(_files(OLD_TREE), out, targets=["schema"])
        with monkeypatch.context() as patch:
            _failing_replace(patch, at, _Crash())
            with pytest.raises(_Crash):
                commit(_files(NEW_TREE), out, targets=["schema"])
        assert _beside(out) == [".out.schemac-commit"], at
        assert recover(str(out)) is not None
        assert _snapshot(out) == _expected(NEW_TREE), at
        assert _beside(out) == [], at
        # and the run after that sees nothing to do
        assert not commit(_files(NEW_TREE), out, targets=["schema"]).changed


def test_a_crash_before_the_commit_point_is_discarded(tmp_path: Path) -> None:
    out = tmp_path / "out"
    commit(_files(OLD_TREE), out, targets=["schema"])
    places = OutPlaces.of(out)
    # What a compile killed while staging leaves, in today's and the old naming.
    for name in (f"{places.staging_prefix}abcd1234", ".out.schemac-k2j_9zq1"):
        (tmp_path / name / "d").mkdir(parents=True)
        (tmp_path / name / "d" / "b.h").write_text("half")
    # A commit directory whose journal was never completed did not commit.
    (tmp_path / ".out.schemac-commit").mkdir()
    (tmp_path / ".out.schemac-commit" / "a.h").write_text("never")
    (tmp_path / "unrelated").mkdir()
    assert recover(str(out)) is None
    assert _snapshot(out) == _expected(OLD_TREE)
    assert _beside(out) == ["unrelated"]


def test_unchanged_files_keep_inode_and_mtime_through_the_journal(tmp_path: Path) -> None:
    out = tmp_path / "out"
    commit(_files(OLD_TREE), out, targets=["schema"])
    os.utime(out / "keep.h", (OLD, OLD))
    inode = (out / "keep.h").stat().st_ino
    commit(_files(NEW_TREE), out, targets=["schema"])
    assert (out / "keep.h").stat().st_mtime == OLD
    assert (out / "keep.h").stat().st_ino == inode


def test_a_first_compile_appears_in_one_rename(tmp_path: Path) -> None:
    out = tmp_path / "deep" / "out"
    commit(_files(OLD_TREE), out, targets=["schema"])
    assert _snapshot(out) == _expected(OLD_TREE)
    mask = os.umask(0)
    os.umask(mask)
    assert out.stat().st_mode & 0o777 == 0o777 & ~mask


# -- containment and shapes ----------------------------------------------------------------------
def _refused(out: Path, files: list[GeneratedFile], match: str) -> None:
    before = _snapshot(out)
    with pytest.raises(CommitError, match=match):
        commit(files, out, targets=["schema"])
    assert _snapshot(out) == before
    assert _beside(out) == [name for name in _beside(out) if not name.startswith(".out.")]


def test_a_symlinked_directory_inside_out_is_refused_on_a_first_compile_too(
    tmp_path: Path,
) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    out = tmp_path / "out"
    (out / "ATen").mkdir(parents=True)
    (out / "ATen" / "ops").symlink_to(elsewhere)
    _refused(out, _files({"ATen/ops/x.h": "X", "a.h": "A"}), r"out/ATen/ops is a symbolic link")
    assert list(elsewhere.iterdir()) == []


def test_stale_files_under_a_symlinked_directory_are_neither_removed_nor_reported(
    tmp_path: Path,
) -> None:
    """Issue 14: stale removal said "4 stale removed" of files behind a link it did not delete."""
    out = tmp_path / "out"
    commit(_files({"ATen/ops/x.h": "X", "a.h": "A"}), out, targets=["schema"])
    shutil.rmtree(out / "ATen" / "ops")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "x.h").write_text("mine")
    (out / "ATen" / "ops").symlink_to(elsewhere)
    # x.h is stale (this run makes only a.h): removing it would go through the link.
    _refused(out, _files({"a.h": "A2"}), r"out/ATen/ops is a symbolic link")
    assert (elsewhere / "x.h").read_text() == "mine"


def test_a_symlinked_output_file_is_refused(tmp_path: Path) -> None:
    victim = tmp_path / "victim"
    victim.write_text("mine")
    out = tmp_path / "out"
    commit(_files({"a.h": "A"}), out, targets=["schema"])
    (out / "a.h").unlink()
    (out / "a.h").symlink_to(victim)
    _refused(out, _files({"a.h": "A2"}), r"out/a.h is a symbolic link")
    assert victim.read_text() == "mine"


def test_a_file_where_a_directory_must_go_is_refused(tmp_path: Path) -> None:
    out = tmp_path / "out"
    commit(_files({"a.h": "A"}), out, targets=["schema"])
    (out / "python").write_text("user's file")
    _refused(out, _files({"a.h": "A2", "python/x.cpp": "X"}), "out/python is a file where")


def test_a_directory_where_a_file_must_go_is_refused(tmp_path: Path) -> None:
    out = tmp_path / "out"
    commit(_files({"a.h": "A"}), out, targets=["schema"])
    (out / "b.h").mkdir()
    (out / "b.h" / "user.txt").write_text("mine")
    _refused(out, _files({"a.h": "A2", "b.h": "B"}), "out/b.h is a directory where")


def _commit_as_nobody(out: Path, tree: dict[str, str]) -> str:
    """Run one commit in a forked child that dropped root; what it raised, or ''."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: no pytest machinery, report through the pipe and leave
        message = ""
        try:
            os.setgid(65534)
            os.setuid(65534)
            commit(_files(tree), out, targets=["schema"])
        except BaseException as error:
            message = str(error) or type(error).__name__
        finally:
            os.write(write, message.encode())
            os._exit(0)
    os.close(write)
    with os.fdopen(read) as stream:
        message = stream.read()
    os.waitpid(pid, 0)
    return message


@pytest.mark.skipif(os.geteuid() != 0, reason="makes files as root to run a commit as nobody")
def test_a_read_only_directory_inside_out_is_refused_before_anything_moves() -> None:
    """As root nothing is read-only, so the commit runs as ``nobody``, in /tmp it may enter."""
    work = Path(tempfile.mkdtemp(prefix="schemac-ro-", dir="/tmp"))
    try:
        out = work / "out"
        commit(_files(OLD_TREE), out, targets=["schema"])
        for path in [work, *work.rglob("*")]:
            os.chown(path, 65534, 65534, follow_symlinks=False)
        (out / "d").chmod(0o555)
        before = _snapshot(out)
        message = _commit_as_nobody(out, NEW_TREE)
        assert "out/d is not writable" in message, message
        assert "nothing was written" in message
        assert _snapshot(out) == before
        assert _beside(out) == []
    finally:
        shutil.rmtree(work, ignore_errors=True)


# -- the lock ------------------------------------------------------------------------------------
def test_a_second_writer_waits_for_the_lock_and_says_so(tmp_path: Path) -> None:
    out = tmp_path / "out"
    said: list[str] = []
    order: list[str] = []
    with output_lock(out):
        assert (tmp_path / ".out.schemac-lock").exists()

        def second() -> None:
            with output_lock(out, said.append):
                order.append("second")

        # flock is per open file, so a second open in this process contends like another process.
        thread = threading.Thread(target=second)
        thread.start()
        time.sleep(0.3)
        order.append("first")
    thread.join(timeout=10)
    assert order == ["first", "second"]
    assert len(said) == 1 and "waiting for another schemac" in said[0], said
    assert f"pid {os.getpid()}" in said[0]
    assert not (tmp_path / ".out.schemac-lock").exists()


def test_a_no_op_record_left_half_written_is_outside_out_and_removed_next(tmp_path: Path) -> None:
    # A compile killed while it writes OUT/.schemac-state leaves its temporary
    # beside OUT (never inside: OUT stays the old or the new tree), and the
    # next compile's recovery removes it.  Found by 20 kill -9 trials.
    from schemac.rebuild.state import up_to_date_files, write_state

    out = tmp_path / "out"
    commit([GeneratedFile("a.h", "int a;\n", "headers")], out, targets=["headers"])
    leftover = Path(OutPlaces.of(out).parent) / f"{OutPlaces.of(out).prefix}state-abc12345"
    leftover.write_text("half a record")
    assert recover(str(out)) is None
    assert not leftover.exists()
    # OUT's parent is a directory the compile listed (the working directory,
    # say): its listing is recorded without the temporary, so the record
    # holds for the next run.
    assert write_state(
        out,
        "key",
        inputs=[],
        directories=[str(tmp_path)],
        generated=[("a.h", "headers", "")],
        bookkeeping=[MANIFEST_NAME],
        auxiliary=[],
        expected=lambda path: b"int a;\n",
    )
    assert up_to_date_files(str(out), lambda: "key") is not None
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]
    assert sorted(p.name for p in out.iterdir()) == [".schemac-manifest", ".schemac-state", "a.h"]
