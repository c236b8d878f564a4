"""``OUT/.schemac-parts``: the loaded parts of the last successful compile into OUT.

What the loader remembers and why: Note [Loaded parts remembered] in
:mod:`schemac.frontend.part_memo`.  Here is only where the bytes are kept.
The layout (the header lines are ASCII)::

    schemac-parts 1 <run key> <n>       the format, the run key the parts are valid under, n
    <part key> <size> <digest>          n lines: each part's key, its size and digest
    <bytes of the n parts, in order>

The run key covers schemac's code and version, Python, the libraries and
the command line, so a file from another schemac (or of another command
into the same OUT) is ignored whole.  Each part's bytes are checked against
their digest when recalled: a truncated or damaged file only costs the parts
it damaged.  The file is replaced (never edited in place) after a compile
that committed, with exactly the parts that compile used.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from schemac.digests import hex_of

PARTS_NAME = ".schemac-parts"
PARTS_FORMAT = "schemac-parts 1"


class LoadedParts:
    """The parts the last run into ``out_dir`` kept, and those this run used (a ``PartMemo``)."""

    def __init__(self, out_dir: Path, run_key: str) -> None:
        self._path = out_dir / PARTS_NAME
        self._run_key = run_key
        self._data = b""
        #: part key -> (offset, size, digest) in ``_data``.
        self._index: dict[str, tuple[int, int, str]] = {}
        #: part key -> (bytes, digest) of every part this run recalled, or what
        #: makes the bytes of a part it loaded; in load order.
        self._used: dict[str, tuple[bytes, str] | Callable[[], bytes | None]] = {}
        self._made = False
        self._read()

    def _read(self) -> None:
        try:
            data = self._path.read_bytes()
        except OSError:
            return
        header_end = data.find(b"\n")
        header = data[:header_end].split(b" ")
        if (
            header_end < 0
            or len(header) != 4
            or header[0] + b" " + header[1] != PARTS_FORMAT.encode()
            or header[2] != self._run_key.encode()
            or not header[3].isdigit()
        ):
            return
        count = int(header[3])
        lines = data[header_end + 1 :].split(b"\n", count)
        if len(lines) != count + 1:
            return
        offset = len(data) - len(lines[count])
        index = {}
        for line in lines[:count]:
            words = line.split(b" ")
            if len(words) != 3 or not words[1].isdigit():
                return
            size = int(words[1])
            index[words[0].decode("ascii", "replace")] = (
                offset,
                size,
                words[2].decode("ascii", "replace"),
            )
            offset += size
        self._data, self._index = data, index

    def recall(self, key: str) -> bytes | None:
        """The part kept under ``key``, if it is there whole."""
        found = self._index.get(key)
        if found is None:
            return None
        offset, size, digest = found
        part = self._data[offset : offset + size]
        if len(part) != size or hex_of(part) != digest:
            return None
        self._used[key] = (part, digest)
        return part

    def remember(self, key: str, data: Callable[[], bytes | None]) -> None:
        """Keep what ``data()`` gives (unless None) under ``key`` in the next file."""
        self._used[key] = data
        self._made = True

    def save(self) -> None:
        """Replace the file with the parts this run used; nothing if they are the ones it holds."""
        if not self._made and self._used.keys() == self._index.keys():
            return
        parts = []
        for key, part in self._used.items():
            if callable(part):
                data = part()
                if data is None:
                    continue
                part = (data, hex_of(data))
            parts.append((key, part))
        lines = [f"{PARTS_FORMAT} {self._run_key} {len(parts)}\n"]
        lines += [f"{key} {len(data)} {digest}\n" for key, (data, digest) in parts]
        # Written beside OUT, as the other files of a running compile are
        # (backends/output/lock.py), and moved in whole.
        out_dir = self._path.parent
        temporary = out_dir.with_name(f".{out_dir.name}{PARTS_NAME}-{os.getpid()}")
        try:
            with open(temporary, "wb") as stream:
                stream.write("".join(lines).encode("ascii"))
                stream.writelines(data for _, (data, _) in parts)
            os.replace(temporary, self._path)
        except OSError:
            # Only a cache: the next run loads every part.
            temporary.unlink(missing_ok=True)
