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

A compile that finds the store valid *appends* (``FragmentWriter(out, stored)``):
the records it reused stay where they are, and the ones it rendered become
one more segment, written in place at the end.  An edit's re-run of torch's
``-t all`` reuses all but a few dozen of ~13,000 fragments, so it writes
kilobytes where rewriting the store wrote ~30 MB (and hashed and encoded it
again).  Records no compile uses any more are garbage; when they pass
:data:`COMPACT_ABOVE` of the file, the compile that finishes writes a fresh
file of the live ones instead (every live record of a unit was rendered in
the unit's current context, so one segment holds them).  A compile without a
valid store writes a fresh file too, to a temporary beside OUT
(``.OUT.schemac-fragments-XXXXXXXX``, a name schemac keeps there:
backends/output/lock.py), renamed into OUT just before the state is written.

Failures: a compile that fails after appending cuts the file back to the
length the last state lists.  A killed one leaves a tail that no state
lists: readers read only the listed segments, and the next appending
compile cuts the tail off first.

A writer inherited through a fork writes nothing in the child, because two
processes appending to one file would interleave.  A forked child of ``-j 2``
(Note [Split emission]) writes its own temporary (:meth:`FragmentWriter.detach`),
which the parent appends to its own (:meth:`FragmentWriter.append_part`):
the texts never cross the pipe.
"""

from __future__ import annotations

import contextlib
import io
import os
from collections.abc import Callable, Iterable, Iterator, Sequence

import attrs

from schemac.digests import hasher, hex_of

#: The name in OUT.
FRAGMENTS_NAME = ".schemac-fragments"

#: The share of garbage above which a finishing compile writes a fresh file.
COMPACT_ABOVE = 0.3
#: Below this size a store is never compacted (the garbage costs nothing).
COMPACT_FROM_BYTES = 1 << 20


@attrs.frozen
class Segment:
    """One compile's records: their digest and size, and each unit's context key."""

    digest: str
    size: int
    #: (unit, context key), sorted.
    contexts: tuple[tuple[str, str], ...] = ()


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


class StoredFragments:
    """The last compiles' fragments, read once on first use."""

    def __init__(self, out_dir: str, segments: Sequence[Segment]) -> None:
        self._path = os.path.join(out_dir, FRAGMENTS_NAME)
        self.segments = tuple(segments)
        self.total = sum(s.size for s in self.segments)
        #: (unit, context, key) -> (record start, text start, record end).
        self._index: dict[tuple[str, str, str], tuple[int, int, int]] | None = None
        self._data = b""
        #: Record start -> record end, of every record this compile used.
        self._used: dict[int, int] = {}

    @property
    def valid(self) -> bool:
        """Whether the file holds the listed segments intact."""
        return bool(self._records())

    def get(self, unit: str, context: str, key: str) -> str | None:
        """The text of ``unit``'s fragment ``key`` rendered in ``context``, if stored."""
        found = self._records().get((unit, context, key))
        if found is None:
            return None
        start, text, end = found
        self._used[start] = end
        return self._data[text:end].decode("utf-8", "surrogatepass")

    def carry(self, unit: str, context: str) -> None:
        """Count every record of ``unit`` in ``context`` as used: a reused target's."""
        for (owner, at, _), (start, _, end) in self._records().items():
            if owner == unit and at == context:
                self._used[start] = end

    def used_offsets(self) -> tuple[int, ...]:
        return tuple(sorted(self._used))

    def mark_used(self, offsets: Iterable[int]) -> None:
        """Count the records starting at ``offsets`` (another process's) as used."""
        ends = {start: end for start, _, end in self._records().values()}
        for start in offsets:
            if start in ends:
                self._used[start] = ends[start]

    def used_size(self) -> int:
        return sum(end - start for start, end in self._used.items())

    def used_records(self) -> Iterator[tuple[str, memoryview]]:
        """(unit, record bytes) of every used record, in file order."""
        data = memoryview(self._data)
        for start in sorted(self._used):
            line_end = self._data.index(b"\n", start)
            size = int(self._data[start:line_end].split(b" ", 1)[0])
            unit = self._data[line_end + 1 : line_end + 1 + size].decode()
            yield unit, data[start : self._used[start]]

    def _records(self) -> dict[tuple[str, str, str], tuple[int, int, int]]:
        if self._index is None:
            self._index = self._read()
        return self._index

    def _read(self) -> dict[tuple[str, str, str], tuple[int, int, int]]:
        try:
            with open(self._path, "rb") as stream:
                data = stream.read(self.total)
        except OSError:
            return {}
        if len(data) != self.total:
            return {}
        index: dict[tuple[str, str, str], tuple[int, int, int]] = {}
        start = 0
        for segment in self.segments:
            end = start + segment.size
            if hex_of(data[start:end]) != segment.digest:
                return {}
            contexts = dict(segment.contexts)
            try:
                position = start
                while position < end:
                    line_end = data.index(b"\n", position)
                    sizes = [int(part) for part in data[position:line_end].split(b" ")]
                    unit_end = line_end + 1 + sizes[0]
                    key_end = unit_end + sizes[1]
                    text_end = key_end + sizes[2]
                    unit = data[line_end + 1 : unit_end].decode()
                    context = contexts.get(unit)
                    if context is not None:
                        key = data[unit_end:key_end].decode()
                        index[(unit, context, key)] = (position, key_end, text_end)
                    position = text_end
            except (ValueError, IndexError, UnicodeDecodeError):
                return {}
            if position != end:
                return {}
            start = end
        self._data = data
        return index


class FragmentWriter:
    """This compile's fragments, written as they come: to a fresh temporary beside
    OUT, or appended to OUT's store (Note [Fragment segments])."""

    def __init__(self, out_dir: str, stored: StoredFragments | None = None) -> None:
        """A fresh file; or, given ``stored`` (valid), one more segment of it, in place."""
        self._stored = stored
        self._temporary = ""
        if stored is None:
            import tempfile

            parent, name = os.path.split(os.path.abspath(out_dir))
            os.makedirs(parent, exist_ok=True)
            prefix = f".{name}.schemac-fragments-"
            handle, self._temporary = tempfile.mkstemp(prefix=prefix, dir=parent)
            self._stream: io.BufferedIOBase = os.fdopen(handle, "wb")
        else:
            self._stream = open(os.path.join(out_dir, FRAGMENTS_NAME), "r+b")  # noqa: SIM115
            self._stream.truncate(stored.total)  # what a killed compile left
            self._stream.seek(stored.total)
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
                data = stream.read(part.size + 1)
        except OSError:
            return
        finally:
            _remove(part.path)
        if len(data) == part.size:
            self._write(data)
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
        if whole >= COMPACT_FROM_BYTES and garbage > COMPACT_ABOVE * whole:
            return self._compact(out_dir, stored, context_of)
        self._stream.close()
        new = (self._segment(self._digest.hexdigest(), self._size, context_of),)
        segments = (*map(relabel, stored.segments), *(new if self._size else ()))
        return segments or None

    def _segment(self, digest: str, size: int, context_of: Callable[[str], str]) -> Segment:
        return Segment(digest, size, tuple(sorted((u, context_of(u)) for u in self.units)))

    def _commit_fresh(
        self, out_dir: str, context_of: Callable[[str], str]
    ) -> tuple[Segment, ...] | None:
        self._stream.close()
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
        self._stream.seek(stored.total)
        with contextlib.closing(self._stream):
            mine = self._stream.read(self._size)
        fresh = FragmentWriter(out_dir)
        for unit, record in stored.used_records():
            fresh._write(record)
            fresh.units.add(unit)
        fresh._write(mine)
        fresh.units.update(self.units)
        return fresh._commit_fresh(out_dir, context_of)

    def discard(self) -> None:
        """Drop this compile's records: the temporary, or what it appended."""
        if not self._stream.closed:
            if self._stored is not None and self.owned():
                self._stream.truncate(self._stored.total)
            self._stream.close()
        if self._temporary:
            _remove(self._temporary)


def _remove(path: str) -> None:
    with contextlib.suppress(FileNotFoundError):
        os.unlink(path)
