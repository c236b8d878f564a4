"""The run key's digest of schemac's code, remembered by stat (Note [Code digest by stat]).

The memo may only ever save reading the files: every digest it gives must be
the one hashing the files' bytes would give, whatever was edited, added or
removed since it was stored, and an edit that hides behind an unchanged size
and mtime must still be seen.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from schemac.digests import hasher
from schemac.rebuild import fingerprint

#: Old enough for a file's times to count as settled (_SETTLED_NS), new enough to be real.
LONG_AGO_NS = 1_700_000_000 * 10**9


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv("SCHEMAC_NO_CACHE", raising=False)
    return tmp_path / "cache" / "schemac" / "code"


def _package(root: Path) -> Path:
    package = root / "pkg"
    (package / "sub").mkdir(parents=True)
    (package / "__pycache__").mkdir()
    (package / "a.py").write_text("A = 1\n")
    (package / "sub" / "t.mako").write_text("${x}\n")
    (package / "__pycache__" / "a.cpython-311.pyc").write_bytes(b"ignored")
    return package


def _settle(package: Path) -> None:
    """File times in the past; ctime cannot be set, so the memo is told to trust them."""
    for path in package.rglob("*"):
        os.utime(path, ns=(LONG_AGO_NS, LONG_AGO_NS))


def _hashed(package: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """The digest from the files' bytes, with no memo."""
    with monkeypatch.context() as m:
        m.setenv("SCHEMAC_NO_CACHE", "1")
        return fingerprint.code_digest(str(package))


def test_the_memo_gives_the_content_digest_and_reads_no_file(
    tmp_path: Path, cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    package = _package(tmp_path)
    _settle(package)
    monkeypatch.setattr(fingerprint, "_SETTLED_NS", 0)  # ctimes are "now"
    expected = _hashed(package, monkeypatch)
    assert fingerprint.code_digest(str(package)) == expected
    assert len(list(cache.iterdir())) == 1
    opened: list[str] = []

    def tracking_open(path: str, *args: object, **kwargs: object) -> object:
        opened.append(str(path))
        return open(path, *args, **kwargs)  # type: ignore[call-overload]

    monkeypatch.setattr(fingerprint, "open", tracking_open, raising=False)
    assert fingerprint.code_digest(str(package)) == expected
    assert [p for p in opened if p.startswith(str(package))] == []  # the memo only
    assert len(opened) == 1


def test_the_package_digest_is_what_it_was_before_the_memo() -> None:
    # The key of every recorded OUT must not change with the memo: the same
    # bytes in the same order (size-prefixed relative path, size-prefixed data).
    package = fingerprint.PACKAGE_DIR
    digest = hasher()
    for root, dirs, files in os.walk(package):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(files):
            if name.endswith((".pyc", ".pyo")):
                continue
            path = os.path.join(root, name)
            relative = os.path.relpath(path, package).encode()
            data = Path(path).read_bytes()
            digest.update(len(relative).to_bytes(4, "little") + relative)
            digest.update(len(data).to_bytes(8, "little") + data)
    assert fingerprint.code_digest() == digest.hexdigest()


@pytest.mark.parametrize("edit", ["same size and mtime", "added file", "removed file", "renamed"])
def test_any_edit_of_the_package_is_seen(
    tmp_path: Path, cache: Path, monkeypatch: pytest.MonkeyPatch, edit: str
) -> None:
    package = _package(tmp_path)
    _settle(package)
    monkeypatch.setattr(fingerprint, "_SETTLED_NS", 0)
    before = fingerprint.code_digest(str(package))
    if edit == "same size and mtime":
        # The edit a tool that restores times makes: only the ctime tells.
        (package / "a.py").write_text("A = 2\n")
        os.utime(package / "a.py", ns=(LONG_AGO_NS, LONG_AGO_NS))
    elif edit == "added file":
        (package / "sub" / "new.py").write_text("")
    elif edit == "removed file":
        (package / "sub" / "t.mako").unlink()
    else:
        (package / "sub" / "t.mako").rename(package / "sub" / "u.mako")
    after = fingerprint.code_digest(str(package))
    assert after != before
    assert after == _hashed(package, monkeypatch)


def test_a_package_edited_a_moment_ago_is_not_remembered(tmp_path: Path, cache: Path) -> None:
    # Racy files: one written in the clock tick of the stat could change again
    # without changing its times, so nothing is stored until they settle.
    package = _package(tmp_path)
    fingerprint.code_digest(str(package))
    assert not cache.exists() or not list(cache.iterdir())


def test_a_damaged_memo_is_not_trusted(
    tmp_path: Path, cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    package = _package(tmp_path)
    _settle(package)
    monkeypatch.setattr(fingerprint, "_SETTLED_NS", 0)
    expected = fingerprint.code_digest(str(package))
    (memo,) = cache.iterdir()
    for damaged in ("", "0" * 63, "Z" * 64, expected[:-1] + "\n"):
        memo.write_text(damaged)
        assert fingerprint.code_digest(str(package)) == expected


def test_no_cache_stores_nothing(
    tmp_path: Path, cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    package = _package(tmp_path)
    _settle(package)
    monkeypatch.setattr(fingerprint, "_SETTLED_NS", 0)
    monkeypatch.setenv("SCHEMAC_NO_CACHE", "1")
    fingerprint.code_digest(str(package))
    assert not cache.exists()
