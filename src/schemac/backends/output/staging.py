"""Comparing files with the output directory and staging the changed ones.

A :class:`Stager` takes the files of one compile one at a time, compares each
with what the output directory holds (size first, then bytes) and writes only
the new or changed ones below a private staging directory next to it, which
it creates when the first changed file arrives: a compile that changes
nothing creates nothing, so OUT's parent keeps its mtime.  :mod:`.commit`
then moves the staged files into place; nothing here touches OUT.

Staging happens while backends are still emitting (:class:`InlineStager`,
in each process of a split ``-j 2``): it only ever writes into a staging
directory, which :meth:`Stager.discard` removes if the compile fails.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from collections.abc import Iterable, Iterator

import attrs

from schemac.backends.output.lock import OutPlaces
from schemac.digests import hasher, hex_of

#: Status letters of a staged file.
CREATED, UPDATED, UNCHANGED = "c", "u", "="

#: The digest recorded for a file found unchanged whose times were settled
#: (Note [Settled files go unhashed]).
UNHASHED = ""

#: How old a file's mtime and ctime must be, by this machine's clock, for its
#: digest to be left out (over a coarse file system's 2 s tick).
SETTLED_NS = 3_000_000_000


@attrs.frozen
class Staged:
    """The outcome of staging: which files are new, changed or unchanged.

    ``staging`` holds every created and updated file at its relative path;
    it is None when no file needed writing.
    """

    staging: str | None
    status: dict[str, str] = attrs.field(eq=False)
    #: path -> digest (:func:`schemac.digests.hex_of`) of the bytes staged or
    #: found unchanged, or :data:`UNHASHED` (Note [Settled files go unhashed]),
    #: for the files an :class:`InlineStager` staged, so that the emitting
    #: process need not keep their texts; empty when staged in line.
    digests: dict[str, str] = attrs.field(factory=dict, eq=False)
    #: path -> (size, mtime_ns, ctime_ns, inode) of each file found unchanged,
    #: as it was when compared: the record vouches only for that (Note
    #: [Compared files are recorded as compared] in ``schemac.rebuild.state``).
    compared: dict[str, tuple[int, int, int, int]] = attrs.field(factory=dict, eq=False)


# Note [Settled files go unhashed]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# The no-op record needs the digest of a file's intended bytes only when the
# file is racy (Note [Up-to-date check] in schemac.rebuild): its times no older
# than a clock tick before the record is made.  A file the commit writes is
# racy or close to it, but most of a re-run's files are found unchanged in OUT
# and keep times of an earlier run (after an edit of torch's YAML, -t all
# finds 48 MB of its large texts unchanged: ~0.09 s of hashing).  So a file
# found unchanged whose mtime and ctime are SETTLED_NS old when it is compared
# gets UNHASHED instead of a digest.  Such a file can only be racy when the
# record is made if something wrote it since, and then the record is refused
# (schemac.rebuild.state): the next run is a full one.  It never falls back to
# hashing what is on disk, which would record someone else's bytes as the
# compile's.  The clock compared with is this machine's, the file's times the
# file system's: a skew only makes a racy file of an UNHASHED one, which
# costs a state, never a wrong one.


def write_new_file(path: str, data: bytes) -> None:
    """Write ``data`` to ``path`` with three system calls.

    Python's ``open()`` adds an ``fstat``, an ``ioctl`` and an ``lseek`` per
    file (buffering and tty checks) that thousands of small outputs pay for
    nothing.
    """
    handle = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o666)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(handle, view) :]
    finally:
        os.close(handle)


def _stat_fields(info: os.stat_result) -> tuple[int, int, int, int]:
    return (info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino)


def same_bytes(path: str, data: bytes) -> bool:
    """Whether the file at ``path`` holds exactly ``data`` (False if there is none)."""
    return _same_bytes(path, data) is not None


def _same_bytes(path: str, data: bytes) -> os.stat_result | None:
    """The file's ``stat`` if it holds exactly ``data``; None if it does not."""
    return _same_chunks(path, len(data), (data,))


def _same_chunks(path: str, size: int, chunks: Iterable[bytes]) -> os.stat_result | None:
    """The file's ``stat`` if it holds exactly ``chunks`` (``size`` bytes in all), read
    and compared a chunk at a time; None if it does not, or there is no such file."""
    try:
        handle = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
        return None
    try:
        info = os.fstat(handle)
        if info.st_size != size:
            return None
        for chunk in chunks:
            got = os.read(handle, len(chunk))
            while len(got) < len(chunk):
                more = os.read(handle, len(chunk) - len(got))
                if not more:
                    return None
                got += more
            if got != chunk:
                return None
        # A file that grew since fstat differs.
        return None if os.read(handle, 1) else info
    except IsADirectoryError:
        return None
    finally:
        os.close(handle)


#: Characters of a large text encoded (compared, hashed, written) at a time.
TEXT_CHUNK = 1 << 18


def _chunks(text: str) -> Iterator[bytes]:
    """The UTF-8 bytes of ``text``, :data:`TEXT_CHUNK` characters at a time."""
    for start in range(0, len(text), TEXT_CHUNK):
        yield text[start : start + TEXT_CHUNK].encode("utf-8")


def same_text(path: str, text: str) -> bool:
    """:func:`same_bytes` for an ASCII ``text``, without encoding it whole."""
    return _same_text(path, text) is not None


def _same_text(path: str, text: str) -> os.stat_result | None:
    """:func:`_same_bytes` for an ASCII ``text``, without encoding it whole."""
    return _same_chunks(path, len(text), _chunks(text))


def _settled(info: os.stat_result) -> bool:
    """Whether a file found unchanged may go unhashed (Note [Settled files go unhashed])."""
    return max(info.st_mtime_ns, info.st_ctime_ns) < time.time_ns() - SETTLED_NS


def write_new_text(path: str, text: str) -> str:
    """:func:`write_new_file` of an ASCII ``text`` a chunk at a time; the bytes' digest."""
    digest = hasher()
    handle = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o666)
    try:
        for chunk in _chunks(text):
            digest.update(chunk)
            view = memoryview(chunk)
            while view:
                view = view[os.write(handle, view) :]
    finally:
        os.close(handle)
    return digest.hexdigest()


def text_digest(text: str) -> str:
    """The digest of ``text``'s UTF-8 bytes, encoding a chunk at a time."""
    digest = hasher()
    for chunk in _chunks(text):
        digest.update(chunk)
    return digest.hexdigest()


class Stager:
    """Stages the files of one compile for ``out_dir``; see the module docstring.

    ``first_compile``: OUT does not exist yet, so there is nothing to compare
    with and every file is created.  ``staging``: a staging directory to add
    to (the manifest joins the files staged while emitting).
    """

    def __init__(self, out_dir: str, *, first_compile: bool, staging: str | None = None) -> None:
        self.out_dir = out_dir
        self.first_compile = first_compile
        self._places = OutPlaces.of(out_dir)
        #: Created on the first write, unless an existing one is continued.
        self._staging = staging
        self._made: set[str] = set()
        self._status: dict[str, str] = {}
        self._compared: dict[str, tuple[int, int, int, int]] = {}

    def add(self, path: str, data: bytes) -> bool:
        """Stage ``data`` for the relative ``path`` unless OUT already has it;
        whether OUT had it with settled times (Note [Settled files go unhashed])."""
        if self.first_compile:
            status = CREATED
        else:
            destination = f"{self.out_dir}/{path}"
            info = _same_bytes(destination, data)
            if info is not None:
                self._status[path] = UNCHANGED
                self._compared[path] = _stat_fields(info)
                return _settled(info)
            status = UPDATED if os.path.isfile(destination) else CREATED
        self._status[path] = status
        self._write(path, data)
        return False

    def add_text(self, path: str, text: str) -> str:
        """:meth:`add` for a large ASCII ``text``, never encoded whole; the
        digest of its bytes (Note [Large texts staged in chunks]), or
        :data:`UNHASHED` (Note [Settled files go unhashed])."""
        if not self.first_compile:
            destination = f"{self.out_dir}/{path}"
            info = _same_text(destination, text)
            if info is not None:
                self._status[path] = UNCHANGED
                self._compared[path] = _stat_fields(info)
                return UNHASHED if _settled(info) else text_digest(text)
            status = UPDATED if os.path.isfile(destination) else CREATED
        else:
            status = CREATED
        self._status[path] = status
        return write_new_text(self._staging_path(path), text)

    def write_extra(self, path: str, data: bytes) -> str:
        """Stage a file that is not compared (the manifest); its staged path."""
        return self._write(path, data)

    def _write(self, path: str, data: bytes) -> str:
        staged = self._staging_path(path)
        write_new_file(staged, data)
        return staged

    def staging_directory(self) -> str:
        """The staging directory, made if it was not yet."""
        staging = self._staging
        if staging is None:
            # Next to OUT, on the same file system, so moving into place is a rename.
            os.makedirs(self._places.parent, exist_ok=True)
            staging = self._staging = tempfile.mkdtemp(
                prefix=self._places.staging_prefix, dir=self._places.parent
            )
        return staging

    def _staging_path(self, path: str) -> str:
        """Where ``path`` is staged, its directory made."""
        staging = self.staging_directory()
        directory = path.rpartition("/")[0]
        if directory not in self._made:
            # Each directory once per compile, not once per file (thousands of mkdirs).
            os.makedirs(f"{staging}/{directory}", exist_ok=True)
            self._made.add(directory)
        return f"{staging}/{path}"

    def result(self) -> Staged:
        return Staged(self._staging, dict(self._status), compared=dict(self._compared))

    def discard(self) -> None:
        """Remove the staging directory and everything in it."""
        if self._staging is not None:
            shutil.rmtree(self._staging, ignore_errors=True)
            self._staging = None


class InlineStager:
    """Stages the files of a compile in this process while the backends emit them.

    ``add`` returns the paths whose bytes it now holds (the caller drops their texts, Note
    [Texts handed over] in :mod:`schemac.backends.driver`), ``result`` what was
    staged with the digest of every file's bytes (the no-op record needs the
    intended bytes of the racy ones), ``discard`` removes it all.  Files are
    staged in batches of about :data:`INLINE_BATCH` bytes: the emitting process
    never holds every text at once (for ``-t headers`` the ~23 MB of texts
    were the largest part of its peak memory), and writing a batch at a time
    costs no more CPU than staging everything at the commit, where writing
    each file between two renders cost ~0.25 s more user time on ``-t headers``
    (the file system's code and the renderer's evict each other from the
    processor's caches).
    """

    def __init__(self, out_dir: str, *, shared: str | None = None) -> None:
        #: Another stager's staging directory this one writes into (:meth:`sibling`).
        self._shared = shared
        self._stager = Stager(out_dir, first_compile=not os.path.isdir(out_dir), staging=shared)
        self._digests: dict[str, str] = {}
        self._pending: list[tuple[str, bytes]] = []
        self._pending_size = 0

    @property
    def out_dir(self) -> str:
        return self._stager.out_dir

    def sibling(self) -> InlineStager:
        """A stager for a forked child's files (Note [Split emission]), made before the
        fork.  On a first compile it writes into this stager's staging directory
        (made now, if it was not yet): every file is new, so the two processes'
        files need not be moved together afterwards (4,300 renames of ``-t
        headers``' per-operator files, ~0.07 s after the child ended).  The paths
        they write differ, or the output set rejects the compile.  Otherwise it
        stages into a directory of its own (:func:`merge_staged`)."""
        stager = self._stager
        if not stager.first_compile:
            return InlineStager(stager.out_dir)
        return InlineStager(stager.out_dir, shared=stager.staging_directory())

    def add(self, path: str, data: bytes) -> list[str]:
        self._pending.append((path, data))
        self._pending_size += len(data)
        if self._pending_size >= INLINE_BATCH:
            self._flush()
        return [path]

    def add_text(self, path: str, text: str) -> list[str]:
        """:meth:`add` of ``text``'s UTF-8 bytes.

        Note [Large texts staged in chunks]
        ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
        A large file's text and its bytes side by side were the peak of
        several targets (``TraceTypeEverything.cpp``: 3.7 MB of text, and as
        much again encoded).  An ASCII text of :data:`TEXT_CHUNK` characters
        or more is compared with OUT, hashed and written a chunk at a time,
        so its bytes never exist whole; the others are encoded and batched as
        :meth:`add` does.  The bytes staged, their digest and the status are
        the same either way.
        """
        if len(text) < TEXT_CHUNK or not text.isascii():
            return self.add(path, text.encode("utf-8"))
        self._flush()
        self._digests[path] = self._stager.add_text(path, text)
        return [path]

    def _flush(self) -> None:
        pending, self._pending, self._pending_size = self._pending, [], 0
        for path, data in pending:
            settled = self._stager.add(path, data)
            self._digests[path] = UNHASHED if settled else hex_of(data)

    def result(self) -> Staged:
        self._flush()
        staged = self._stager.result()
        return Staged(staged.staging, staged.status, self._digests, staged.compared)

    def discard(self) -> None:
        """Remove what was staged (a shared directory: its owner removes it)."""
        self._pending.clear()
        if self._shared is None:
            self._stager.discard()


#: Bytes an :class:`InlineStager` holds before it stages them.
INLINE_BATCH = 1 << 20


def merge_staged(first: Staged, second: Staged) -> Staged:
    """One staging outcome from two processes' (Note [Split emission]): ``second``'s
    files move into ``first``'s directory (or its directory is taken whole).

    The two hold different paths (the output set rejects a path produced
    twice before any commit), so moving never replaces a file; a directory
    only ``second`` has moves in one rename.
    """
    status = {**first.status, **second.status}
    digests = {**first.digests, **second.digests}
    compared = {**first.compared, **second.compared}
    if second.staging == first.staging:  # one directory (InlineStager.sibling)
        return Staged(first.staging, status, digests, compared)
    if second.staging is None:
        return Staged(first.staging, status, digests, compared)
    if first.staging is None:
        return Staged(second.staging, status, digests, compared)
    _move_tree(second.staging, first.staging)
    shutil.rmtree(second.staging, ignore_errors=True)
    return Staged(first.staging, status, digests, compared)


def _move_tree(source: str, destination: str) -> None:
    for entry in os.scandir(source):
        there = f"{destination}/{entry.name}"
        if entry.is_dir(follow_symlinks=False) and os.path.isdir(there):
            _move_tree(entry.path, there)
        else:
            os.rename(entry.path, there)


def discard_staged(staged: Staged | None) -> None:
    """Remove a staging outcome's directory (a failed or interrupted compile)."""
    if staged is not None and staged.staging is not None:
        shutil.rmtree(staged.staging, ignore_errors=True)
