"""``OUT/.schemac-fragments``: the pieces of aggregate files compiles rendered.

Note [Fragment reuse] in :mod:`schemac.backends.reuse` says what a fragment is
and why reusing one is the same as rendering it.  This module only stores
them: a flat file of records, each the fragment's unit (``target/backend``),
its local key (the digest of the render function and the inputs, computed by
the backend side) and its text, all UTF-8 and length-prefixed::

    <len unit> <len key> <len text> LF <unit> <key> <text>

Note [Fragment segments]
~~~~~~~~~~~~~~~~~~~~~~~~
The file is a sequence of *segments*, each a whole number of records that
one compile wrote.  The state lists them in order (``frag`` lines: digest
and size), each with the context key its units' records were rendered in
(``fctx`` lines, Note [File reuse]).  A lookup names the unit's context as
it is now, and only a record of a segment rendered in that context answers;
the next compile trusts a segment only if its bytes match the state.  A
truncated, edited or foreign file therefore costs a re-render, never a wrong
output.

The segments live in two files: the *base* (``.schemac-fragments``), written
whole by a compile without a valid store or by one that compacts, and never
changed afterwards, and the *tail* (``.schemac-fragments-tail``), the
segments appended since.  A compile that finds the store valid *appends*
(``FragmentWriter(out, stored)``): the records it reused stay where they are,
and the ones it rendered become one more segment, written in place at the end
of the tail.  An edit's re-run of torch's
``-t all`` reuses all but a few dozen of ~13,000 fragments, so it writes
kilobytes where rewriting the store wrote ~30 MB (and hashed and encoded it
again).  Records no compile uses any more are garbage; when they pass
:data:`COMPACT_ABOVE` of the store (or the tail passes :data:`TAIL_ABOVE`),
the compile that finishes writes a fresh base of the live ones instead
(every live record of a unit was rendered in the unit's current context, so
one segment holds them).  A compile without a
valid store writes a fresh file too, to a temporary beside OUT
(``.OUT.schemac-fragments-XXXXXXXX``, a name schemac keeps there:
backends/output/lock.py), renamed into OUT just before the state is written.

Failures: a compile that fails after appending cuts the tail back to the
length the last state lists.  A killed one leaves bytes that no state
lists: readers read only the listed segments, and the next appending
compile cuts them off first.

Note [A settled base goes unhashed]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
Checking the store's bytes against the state is ~0.05 s of BLAKE2b for
torch's -t all (30 MB) in every process that reads it, after every edit.
The base is trusted as OUT's files are (Note [Up-to-date check]): the state
may vouch for its size, mtime, ctime and inode (an ``fstat`` line), and a
reader that finds exactly those hashes only the tail.  A record vouches for
the base only when its bytes were checked and nothing can have changed
them since unseen:

* the compile that records read the base (hashing it, or trusting an
  earlier record that matched), and the ``fstat`` of its descriptor after
  the read was *settled* then: its times older, by a file-system clock tick,
  than the mtime of the last state (read before the store, and written by
  a compile that finished before this one started), so that any write after
  the read changes them (a ``stat`` is not exact within a tick: git's
  "racy" files);
* the base has that same ``stat`` when the state is written and is not racy
  against the state's own clock reading (as OUT's files, :mod:`.state`).

A base this compile wrote (a fresh store, a compaction) is never vouched
for: it is hashed by the next compile, which may vouch for it.  Appends go
to the tail, which is always hashed (an edit's is kilobytes), so the base
is not written by the compiles that trust it.  A hand edit, a truncation or
a replaced file changes the size, mtime, ctime or inode (ctime cannot be set
from user space): the base is hashed, fails, and the store is rebuilt.

Note [The base is mapped, not read]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
Reading the base (~30-40 MB for torch's -t all) copied it into a new bytes
object: ~25 ms of CPU on the serial part of every edit's re-run (the parent
reads the store before a ``-j 2`` fork: Note [Digests shared with the child]),
most of it the kernel zeroing and faulting in 40 MB of fresh anonymous pages.
The base is mapped read-only instead, its listed size only: indexing and
looking records up touch the page cache's own pages (a forked child shares
the same ones), and what is looked up is sliced out as before.  This is
sound because schemac never changes a base in place: a fresh base or a
compaction is a new file renamed over the old one (whose inode, still mapped,
keeps its bytes), and appends go to the tail, which is still read (it is
truncated in place to its listed length, and is small).  A base cut short
by hand *while* a compile has it mapped would fault that compile (SIGBUS)
rather than give a wrong output; one cut short before is refused as before
(its size is below the listed one, or its digest or stat differs).

Note [The base hashed beside the passes]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
A base no record vouches for yet (the first edit after a cold compile, whose
fresh base is never vouched for) is hashed whole: ~55 ms of BLAKE2b for
torch's -t all (38 MB), on the serial part of the run, before the fork.
BLAKE2b releases the GIL over large buffers, and the second core idles while
the passes run, so the record starts the hash in a thread as soon as it has
read the last state (:meth:`StoredFragments.hash_base_soon`), and the reader
takes its digests when it first needs the store, if the base still has the
stat the thread saw (else it hashes again, as before).  The thread maps and
hashes only; it never indexes or decides, and is joined before any fork (the
store is read before one: Note [Digests shared with the child]); a child
forked while it runs finds no digests and hashes itself.

A writer inherited through a fork writes nothing in the child, because two
processes appending to one file would interleave.  A forked child of ``-j 2``
(Note [Split emission]) writes its own temporary (:meth:`FragmentWriter.detach`),
which the parent appends to its own (:meth:`FragmentWriter.append_part`):
the texts never cross the pipe.
"""

from __future__ import annotations

import contextlib
import io
import mmap
import os
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence

import attrs

from schemac.digests import hasher, hex_of

#: The names in OUT: the base and the tail (Note [Fragment segments]).
FRAGMENTS_NAME = ".schemac-fragments"
TAIL_NAME = ".schemac-fragments-tail"

#: The share of garbage above which a finishing compile writes a fresh file.
COMPACT_ABOVE = 0.3
#: The share of the store in the tail above which it is compacted too (the
#: tail is hashed by every reader).
TAIL_ABOVE = 0.1
#: Below this size a store is never compacted (the garbage costs nothing).
COMPACT_FROM_BYTES = 1 << 20

#: A file's (size, mtime_ns, ctime_ns, inode).
Stat = tuple[int, int, int, int]


def stat_of(info: os.stat_result) -> Stat:
    return (info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino)


@attrs.frozen
class Segment:
    """One compile's records: their digest and size, and each unit's context key."""

    digest: str
    size: int
    #: (unit, context key), sorted.
    contexts: tuple[tuple[str, str], ...] = ()
    #: In the tail file (else in the base; the base's segments come first).
    tail: bool = False


@attrs.frozen
class Trust:
    """What the last state says of the base (Note [A settled base goes unhashed])."""

    #: The stat the last record vouched for; None: it vouched for none.
    vouched: Stat | None = None
    #: File-system time (ns) before which a stat's times are settled for a
    #: reader of this compile: the last state's mtime less a clock tick
    #: (None: nothing is settled).
    settled_before: int | None = None


@attrs.frozen
class FragmentPart:
    """A forked child's fragments, handed to its parent."""

    #: Its records, in a closed file beside OUT (None: it rendered none).
    path: str | None
    size: int
    #: The units (``target/backend``) it used fragments of.
    units: tuple[str, ...] = ()
    #: Where the stored records it reused start (:meth:`StoredFragments.used_offsets`).
    used: tuple[int, ...] = ()


#: (start, text start, end) of a record, by its key, for one (unit, context).
_Table = dict[bytes, tuple[int, int, int]]


class StoredFragments:
    """The last compiles' fragments, read once on first use.

    Offsets run over the base and then the tail, as if they were one file."""

    def __init__(self, out_dir: str, segments: Sequence[Segment], trust: Trust = Trust()) -> None:
        self._out = out_dir
        self.segments = tuple(segments)
        self._trust = trust
        self.base_total = sum(s.size for s in self.segments if not s.tail)
        self.total = sum(s.size for s in self.segments)
        #: (unit, context) -> its records; None until read, empty if the files are not valid.
        self._tables: dict[tuple[str, str], _Table] | None = None
        self._base: bytes | mmap.mmap = b""
        self._tail: bytes | mmap.mmap = b""
        #: The base's stat as checked by this compile, if a record may vouch
        #: for it (Note [A settled base goes unhashed]).
        self.base_stat: Stat | None = None
        #: Record start -> record end, of every record this compile used.
        self._used: dict[int, int] = {}
        #: The base's digests, computed in a thread (Note [The base hashed beside the passes]).
        self._prehash: _Prehash | None = None

    def hash_base_soon(self) -> None:
        """Start hashing the base's listed segments in a thread, unless it is read
        already (Note [The base hashed beside the passes])."""
        base = [s for s in self.segments if not s.tail]
        if self._tables is None and self._prehash is None and base:
            path = os.path.join(self._out, FRAGMENTS_NAME)
            self._prehash = _Prehash(path, base, self._trust.vouched)

    @property
    def valid(self) -> bool:
        """Whether the files hold the listed segments intact."""
        return any(self._records().values())

    def get(self, unit: str, context: str, key: str) -> str | None:
        """The text of ``unit``'s fragment ``key`` rendered in ``context``, if stored."""
        table = self._records().get((unit, context))
        found = None if table is None else table.get(key.encode())
        if found is None:
            return None
        start, text, end = found
        self._used[start] = end
        return str(self._bytes(text, end), "utf-8", "surrogatepass")

    def _bytes(self, start: int, end: int) -> bytes | memoryview:
        """The stored bytes from ``start`` to ``end`` (never across the two files)."""
        base = self.base_total
        if start < base:
            return memoryview(self._base)[start:end]
        return memoryview(self._tail)[start - base : end - base]

    def carry(self, unit: str, context: str) -> None:
        """Count every record of ``unit`` in ``context`` as used: a reused target's."""
        for start, _, end in self._records().get((unit, context), {}).values():
            self._used[start] = end

    def used_offsets(self) -> tuple[int, ...]:
        return tuple(sorted(self._used))

    def mark_used(self, offsets: Iterable[int]) -> None:
        """Count the records starting at ``offsets`` (another process's) as used."""
        ends = {
            start: end for table in self._records().values() for start, _, end in table.values()
        }
        for start in offsets:
            if start in ends:
                self._used[start] = ends[start]

    def used_size(self) -> int:
        return sum(end - start for start, end in self._used.items())

    def used_records(self) -> Iterator[tuple[str, bytes | memoryview]]:
        """(unit, record bytes) of every used record, in file order."""
        for start in sorted(self._used):
            record = self._bytes(start, self._used[start])
            line_end = bytes(record[:64]).index(b"\n")
            size = int(bytes(record[:line_end]).split(b" ", 1)[0])
            yield bytes(record[line_end + 1 : line_end + 1 + size]).decode(), record

    def read(self) -> None:
        """Read and index the files now (else on first use)."""
        self._records()

    def _records(self) -> dict[tuple[str, str], _Table]:
        if self._tables is None:
            self._tables = self._read()
        return self._tables

    def _read(self) -> dict[tuple[str, str], _Table]:
        base = [s for s in self.segments if not s.tail]
        tail = self.segments[len(base) :]
        if not all(s.tail for s in tail):
            return {}
        tables: dict[tuple[str, str], _Table] = {}
        read = self._read_file(FRAGMENTS_NAME, base, 0, tables, base=True)
        if read is None:
            return {}
        self._base = read
        if tail:
            read = self._read_file(TAIL_NAME, tail, self.base_total, tables)
            if read is None:
                self.base_stat = None
                return {}
            self._tail = read
        return tables

    def _read_file(
        self,
        name: str,
        segments: Sequence[Segment],
        offset: int,
        tables: dict[tuple[str, str], _Table],
        *,
        base: bool = False,
    ) -> bytes | mmap.mmap | None:
        """One file's listed segments, indexed into ``tables``; None if not intact."""
        size = sum(s.size for s in segments)
        data: bytes | mmap.mmap
        try:
            with open(os.path.join(self._out, name), "rb") as stream:
                stat = stat_of(os.fstat(stream.fileno()))
                if base and stat[0] >= size > 0:
                    # Note [The base is mapped, not read].
                    data = mmap.mmap(stream.fileno(), size, access=mmap.ACCESS_READ)
                else:
                    data = stream.read(size)
        except (OSError, ValueError):
            return None
        if len(data) != size:
            return None
        trust = self._trust
        # Note [A settled base goes unhashed]: the base the last record vouched
        # for, unchanged, is not hashed again.
        trusted = base and stat == trust.vouched
        if not trusted:
            prehash = self._prehash if base else None
            known = None if prehash is None else prehash.digests(stat)
            digests = known or _segment_digests(data, [s.size for s in segments])
            if any(d != s.digest for d, s in zip(digests, segments, strict=True)):
                return None
        start = 0
        for segment in segments:
            end = start + segment.size
            if not _index(data, start, end, offset, segment, tables):
                return None
            start = end
        if base:
            settled = trust.settled_before
            if trusted or (settled is not None and max(stat[1], stat[2]) < settled):
                self.base_stat = stat
        return data


def _segment_digests(data: bytes | mmap.mmap, sizes: Sequence[int]) -> tuple[str, ...]:
    """The digest of each of the consecutive segments of ``data`` of ``sizes``."""
    digests, start = [], 0
    for size in sizes:
        digests.append(hex_of(memoryview(data)[start : start + size]))
        start += size
    return tuple(digests)


class _Prehash:
    """The digests of a base's listed segments, computed in a thread (Note [The
    base hashed beside the passes]), with the stat of the file they are of."""

    def __init__(self, path: str, segments: Sequence[Segment], vouched: Stat | None) -> None:
        self._path = path
        self._sizes = tuple(s.size for s in segments)
        self._vouched = vouched
        self._found: tuple[Stat, tuple[str, ...]] | None = None
        self._thread = threading.Thread(target=self._hash, name="schemac-base-hash", daemon=True)
        self._thread.start()

    def _hash(self) -> None:
        size = sum(self._sizes)
        try:
            with open(self._path, "rb") as stream:
                stat = stat_of(os.fstat(stream.fileno()))
                if stat == self._vouched or not stat[0] >= size > 0:
                    return  # trusted, or refused: the reader hashes nothing
                with mmap.mmap(stream.fileno(), size, access=mmap.ACCESS_READ) as data:
                    digests = _segment_digests(data, self._sizes)
        except (OSError, ValueError):
            return
        self._found = (stat, digests)

    def digests(self, stat: Stat) -> tuple[str, ...] | None:
        """The digests, once the thread is done, if they are of a file with ``stat``."""
        self._thread.join()
        found = self._found
        return found[1] if found is not None and found[0] == stat else None


def _index(
    data: bytes | mmap.mmap,
    start: int,
    end: int,
    offset: int,
    segment: Segment,
    tables: dict[tuple[str, str], _Table],
) -> bool:
    """File the records of ``data[start:end]`` (one segment) in ``tables``; False
    if they do not fill it exactly.  ``offset``: the file's first byte's offset."""
    # A record's unit, as stored, -> the table its context files it in.
    units = {
        unit.encode(): tables.setdefault((unit, context), {}) for unit, context in segment.contexts
    }
    find = data.find  # a map has no index()
    position = start
    try:
        # Run ~13,000 times for torch's -t all: one split and three slices a
        # record, nothing decoded (keys are looked up as bytes).
        while position < end:
            line_end = find(b"\n", position, end)
            if line_end < 0:
                return False
            unit_size, key_size, text_size = data[position:line_end].split(b" ")
            unit_end = line_end + 1 + int(unit_size)
            key_end = unit_end + int(key_size)
            text_end = key_end + int(text_size)
            table = units.get(data[line_end + 1 : unit_end])
            if table is not None:
                table[data[unit_end:key_end]] = (
                    position + offset,
                    key_end + offset,
                    text_end + offset,
                )
            position = text_end
    except ValueError:
        return False
    return position == end


#: Bytes a detached writer's part is copied by (:meth:`FragmentWriter.append_part`).
_COPY_CHUNK = 1 << 18


class FragmentWriter:
    """This compile's fragments, written as they come: to a fresh temporary beside
    OUT, or appended to the tail of OUT's store (Note [Fragment segments])."""

    def __init__(self, out_dir: str, stored: StoredFragments | None = None) -> None:
        """A fresh file; or, given ``stored`` (valid), one more segment of its tail, in place."""
        self._stored = stored
        self._temporary = ""
        #: Whether :meth:`commit` wrote a fresh base.
        self.wrote_base = False
        if stored is None:
            import tempfile

            parent, name = os.path.split(os.path.abspath(out_dir))
            os.makedirs(parent, exist_ok=True)
            prefix = f".{name}.schemac-fragments-"
            handle, self._temporary = tempfile.mkstemp(prefix=prefix, dir=parent)
            self._stream: io.BufferedIOBase = os.fdopen(handle, "wb")
        else:
            handle = os.open(os.path.join(out_dir, TAIL_NAME), os.O_RDWR | os.O_CREAT, 0o600)
            self._stream = os.fdopen(handle, "r+b")
            self._tail_total = stored.total - stored.base_total
            self._stream.truncate(self._tail_total)  # what a killed compile left
            self._stream.seek(self._tail_total)
        self._pid = os.getpid()
        self._digest = hasher()
        self._size = 0
        self._seen: set[tuple[str, str]] = set()
        #: The units with records in this writer's segment.
        self.units: set[str] = set()

    def owned(self) -> bool:
        """Whether this process opened the writer (a forked child did not)."""
        return os.getpid() == self._pid

    def add(self, unit: str, key: str, text: str) -> None:
        if os.getpid() != self._pid or (unit, key) in self._seen:
            return
        self._seen.add((unit, key))
        self.units.add(unit)
        parts = [part.encode("utf-8", "surrogatepass") for part in (unit, key, text)]
        self._write(b"%d %d %d\n" % tuple(len(part) for part in parts) + b"".join(parts))

    def _write(self, data: bytes | memoryview) -> None:
        self._stream.write(data)
        self._digest.update(data)
        self._size += len(data)

    def detach(self, units: tuple[str, ...], used: tuple[int, ...]) -> FragmentPart:
        """Close the file and hand it over whole, for a parent's :meth:`append_part`."""
        self._stream.close()
        return FragmentPart(self._temporary, self._size, units, used)

    def append_part(self, part: FragmentPart) -> None:
        """Append a detached writer's records (then remove its file).  A part
        of another size than it was closed with (cut short, say) is dropped:
        the fragments are a cache."""
        if part.path is None:
            return
        try:
            with open(part.path, "rb") as stream:
                if os.fstat(stream.fileno()).st_size != part.size:
                    return
                # A chunk at a time: the child's part of torch's -t headers is
                # ~3 MB, read whole at the parent's peak (+3 MiB of it).
                while chunk := stream.read(_COPY_CHUNK):
                    self._write(chunk)
        except OSError:
            return
        finally:
            _remove(part.path)
        self.units.update(part.units)

    def commit(
        self,
        out_dir: str,
        context_of: Callable[[str], str],
        relabel: Callable[[Segment], Segment] = lambda segment: segment,
    ) -> tuple[Segment, ...] | None:
        """Finish the store; its segments for the state (None: it holds nothing).

        ``context_of(unit)``: the unit's context key in this compile, for the
        records it wrote or compacted; ``relabel``: what the stored segments
        kept as they are say of their contexts now."""
        stored = self._stored
        if stored is None:
            return self._commit_fresh(out_dir, context_of)
        self._stream.flush()
        whole = stored.total + self._size
        garbage = stored.total - stored.used_size()
        tail = whole - stored.base_total
        if whole >= COMPACT_FROM_BYTES and (
            garbage > COMPACT_ABOVE * whole or tail > TAIL_ABOVE * whole
        ):
            return self._compact(out_dir, stored, context_of)
        self._stream.close()
        new = (self._segment(self._digest.hexdigest(), self._size, context_of, tail=True),)
        segments = (*map(relabel, stored.segments), *(new if self._size else ()))
        return segments or None

    def _segment(
        self, digest: str, size: int, context_of: Callable[[str], str], *, tail: bool = False
    ) -> Segment:
        contexts = tuple(sorted((u, context_of(u)) for u in self.units))
        return Segment(digest, size, contexts, tail)

    def _commit_fresh(
        self, out_dir: str, context_of: Callable[[str], str]
    ) -> tuple[Segment, ...] | None:
        self._stream.close()
        self.wrote_base = True
        _remove(os.path.join(out_dir, TAIL_NAME))
        if not self._size:
            self.discard()
            _remove(os.path.join(out_dir, FRAGMENTS_NAME))
            return None
        os.replace(self._temporary, os.path.join(out_dir, FRAGMENTS_NAME))
        return (self._segment(self._digest.hexdigest(), self._size, context_of),)

    def _compact(
        self, out_dir: str, stored: StoredFragments, context_of: Callable[[str], str]
    ) -> tuple[Segment, ...] | None:
        """A fresh file of the records this compile used, then those it wrote."""
        self._stream.seek(self._tail_total)
        with contextlib.closing(self._stream):
            mine = self._stream.read(self._size)
        fresh = FragmentWriter(out_dir)
        for unit, record in stored.used_records():
            fresh._write(record)
            fresh.units.add(unit)
        fresh._write(mine)
        fresh.units.update(self.units)
        segments = fresh._commit_fresh(out_dir, context_of)
        self.wrote_base = True
        return segments

    def discard(self) -> None:
        """Drop this compile's records: the temporary, or what it appended."""
        if not self._stream.closed:
            if self._stored is not None and self.owned():
                self._stream.truncate(self._tail_total)
            self._stream.close()
        if self._temporary:
            _remove(self._temporary)


def _remove(path: str) -> None:
    with contextlib.suppress(FileNotFoundError):
        os.unlink(path)
