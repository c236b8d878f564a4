"""``OUT/.schemac-parts``: the loaded parts of the last successful compile into OUT.

What the loader remembers and why: Note [Loaded parts remembered] in
:mod:`schemac.frontend.part_memo`.  Here is only where the bytes are kept.
The layout (the lines are ASCII)::

    schemac-parts 3 <run key>           the format, and the run key the parts are valid under
    <part key> <size> <digest>          then for each part: its key, size and digest,
    <size bytes>                        and its bytes, right after the line's break

The run key covers schemac's code and version, Python, the libraries and
the command line, so a file from another schemac (or of another command
into the same OUT) is ignored whole.  Each part's bytes are checked against
their digest when recalled: a truncated or damaged file only costs the parts
it damaged.  The file is replaced (never edited in place) after a compile
that committed, with exactly the parts that compile used, each written as
soon as it is pickled: the run never holds all of them at once (~1.7 MB for
torch's files, at the end of a cold run).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from schemac.digests import hex_of

PARTS_NAME = ".schemac-parts"
PARTS_FORMAT = "schemac-parts 3"


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
        at = data.find(b"\n")
        if at < 0 or data[:at] != f"{PARTS_FORMAT} {self._run_key}".encode():
            return
        at += 1
        index = {}
        while at < len(data):
            end = data.find(b"\n", at)
            words = data[at:end].split(b" ") if end >= 0 else []
            if len(words) != 3 or not words[1].isdigit():
                break  # damaged from here on: the parts before it still count
            size = int(words[1])
            index[words[0].decode("ascii", "replace")] = (
                end + 1,
                size,
                words[2].decode("ascii", "replace"),
            )
            at = end + 1 + size
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
        # Written beside OUT, as the other files of a running compile are
        # (backends/output/lock.py), and moved in whole.
        out_dir = self._path.parent
        temporary = out_dir.with_name(f".{out_dir.name}{PARTS_NAME}-{os.getpid()}")
        try:
            with open(temporary, "wb") as stream:
                stream.write(f"{PARTS_FORMAT} {self._run_key}\n".encode("ascii"))
                for key, part in self._used.items():
                    if callable(part):
                        made = part()
                        if made is None:
                            continue
                        data, digest = made, hex_of(made)
                    else:
                        data, digest = part
                    stream.write(f"{key} {len(data)} {digest}\n".encode("ascii"))
                    stream.write(data)
            os.replace(temporary, self._path)
        except OSError:
            pass  # only a cache: the next run loads every part
        finally:
            # Also when the save is interrupted (SIGINT, SIGTERM): nothing of
            # it stays beside OUT.  After the rename the name is gone already.
            temporary.unlink(missing_ok=True)
