"""``OUT/.schemac-fragments``: the pieces of aggregate files the last compile rendered.

Note [Fragment reuse] in :mod:`schemac.backends.reuse` says what a fragment is
and why reusing one is the same as rendering it.  This module only stores
them: a flat file of records, each the fragment's target, its local key (the
digest of the render function and the inputs, computed by the backend side)
and its text, all UTF-8 and length-prefixed::

    <len target> <len key> <len text> LF <target> <key> <text>

The file is written while the compile runs, one record per fragment, to a
temporary beside OUT (``.OUT.schemac-fragments-XXXXXXXX``, a name schemac keeps
there: backends/output/lock.py), so the texts are not held in memory until the
end; it is renamed into OUT just before the state is written.  Its SHA-256 and
size go into the state (``frag`` line), with each target's context key
(``fctx`` lines, Note [File reuse]); the next compile trusts the file only if
the state is well formed, the SHA-256 matches and the target's context key is
its own.  A truncated, edited or foreign file therefore costs a re-render,
never a wrong output.  Only the process that opened the writer records:
a writer inherited through a fork writes nothing in the child, because two
processes appending to one file would interleave.
A forked child of ``-j 2`` (Note [Split emission]) writes its own temporary
(:meth:`FragmentWriter.detach`), which the parent appends to its own
(:meth:`FragmentWriter.append_part`): the texts never cross the pipe, and
the two processes' records never share a file while both write.
"""

from __future__ import annotations

import contextlib
import hashlib
import os

import attrs

#: The name in OUT.
FRAGMENTS_NAME = ".schemac-fragments"


@attrs.frozen
class FragmentPart:
    """A forked child's fragments, in a closed file for its parent to append."""

    path: str
    size: int
    #: The units (``target/backend``) it holds fragments of.
    units: tuple[str, ...] = ()


class FragmentWriter:
    """This compile's fragments, appended to a temporary beside OUT as they come."""

    def __init__(self, out_dir: str) -> None:
        import tempfile

        parent, name = os.path.split(os.path.abspath(out_dir))
        os.makedirs(parent, exist_ok=True)
        handle, self._temporary = tempfile.mkstemp(prefix=f".{name}.schemac-fragments-", dir=parent)
        self._stream = os.fdopen(handle, "wb")
        self._pid = os.getpid()
        self._digest = hashlib.sha256()
        self._size = 0
        self._seen: set[tuple[str, str]] = set()

    def add(self, target: str, key: str, text: str) -> None:
        if os.getpid() != self._pid or (target, key) in self._seen:
            return
        self._seen.add((target, key))
        parts = [part.encode("utf-8", "surrogatepass") for part in (target, key, text)]
        record = b"%d %d %d\n" % tuple(len(part) for part in parts) + b"".join(parts)
        self._stream.write(record)
        self._digest.update(record)
        self._size += len(record)

    def owned(self) -> bool:
        """Whether this process opened the writer (a forked child did not)."""
        return os.getpid() == self._pid

    def detach(self, units: tuple[str, ...]) -> FragmentPart:
        """Close the file and hand it over whole, for a parent's :meth:`append_part`."""
        self._stream.close()
        return FragmentPart(self._temporary, self._size, units)

    def append_part(self, part: FragmentPart) -> None:
        """Append a detached writer's records (then remove its file).  A part
        of another size than it was closed with (cut short, say) is dropped:
        the fragments are a cache."""
        try:
            with open(part.path, "rb") as stream:
                data = stream.read(part.size + 1)
        except OSError:
            return
        finally:
            _remove(part.path)
        if len(data) == part.size:
            self._stream.write(data)
            self._digest.update(data)
            self._size += part.size

    def commit(self, out_dir: str) -> tuple[str, int] | None:
        """Move the file into OUT; its (SHA-256, size), or None if nothing was recorded."""
        self._stream.close()
        if not self._size:
            self.discard()
            _remove(os.path.join(out_dir, FRAGMENTS_NAME))
            return None
        os.replace(self._temporary, os.path.join(out_dir, FRAGMENTS_NAME))
        return self._digest.hexdigest(), self._size

    def discard(self) -> None:
        if not self._stream.closed:
            self._stream.close()
        _remove(self._temporary)


def _remove(path: str) -> None:
    with contextlib.suppress(FileNotFoundError):
        os.unlink(path)


class StoredFragments:
    """The last compile's fragments, read once on first use."""

    def __init__(self, out_dir: str, digest: str, size: int) -> None:
        self._path = os.path.join(out_dir, FRAGMENTS_NAME)
        self._digest = digest
        self._size = size
        self._index: dict[tuple[str, str], tuple[int, int]] | None = None
        self._data = b""

    def get(self, target: str, key: str) -> str | None:
        if self._index is None:
            self._index = self._read()
        found = self._index.get((target, key))
        if found is None:
            return None
        start, end = found
        return self._data[start:end].decode("utf-8", "surrogatepass")

    def of_target(self, target: str) -> list[tuple[str, str]]:
        """(key, text) of every fragment of ``target``: a reused target's, carried over."""
        if self._index is None:
            self._index = self._read()
        data = self._data
        return [
            (key, data[start:end].decode("utf-8", "surrogatepass"))
            for (owner, key), (start, end) in self._index.items()
            if owner == target
        ]

    def _read(self) -> dict[tuple[str, str], tuple[int, int]]:
        try:
            with open(self._path, "rb") as stream:
                data = stream.read(self._size + 1)
        except OSError:
            return {}
        if len(data) != self._size or hashlib.sha256(data).hexdigest() != self._digest:
            return {}
        index: dict[tuple[str, str], tuple[int, int]] = {}
        position = 0
        try:
            while position < len(data):
                line_end = data.index(b"\n", position)
                sizes = [int(part) for part in data[position:line_end].split(b" ")]
                target_end = line_end + 1 + sizes[0]
                key_end = target_end + sizes[1]
                text_end = key_end + sizes[2]
                target = data[line_end + 1 : target_end].decode()
                key = data[target_end:key_end].decode()
                index[(target, key)] = (key_end, text_end)
                position = text_end
        except (ValueError, IndexError, UnicodeDecodeError):
            return {}
        if position != len(data):
            return {}
        self._data = data
        return index
