"""Many small per-operator texts rendered as a few fragments: buckets by name.

Note [Fragment buckets]
~~~~~~~~~~~~~~~~~~~~~~~
A file family made of thousands of small pieces (the autograd kernels, the
Python bindings) would pay, as one fragment each (Note [Fragment reuse]), a
store record and a lookup per piece, costing about as much as rendering the
piece.  So the pieces are rendered in :data:`BUCKETS` buckets: a piece goes
to the bucket its name hashes to (CRC-32, the same in every run and process),
each bucket is one fragment whose inputs are its pieces' inputs in order, and
whose text is each piece's text followed by :data:`SEPARATOR`.  An edit of one
operator changes the inputs of the buckets holding its pieces: those are
rendered again (1/64 of the pieces each), the others are read back and split.

The texts come back in the order of the pieces, whatever the buckets: the
files that paste them (a shard, the Everything file) order them themselves.
A bucket's key covers exactly the pieces it holds, so adding or removing a
piece changes only its own bucket.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from schemac.backends.reuse import Fragments

#: Ends each piece's text in a bucket's text.  No generated C++ contains a NUL
#: character; if one ever did, the count check in :func:`bucketed_texts` fails.
SEPARATOR = "\0"

#: Buckets per family: an edit re-renders about 1/BUCKETS of its pieces, and a
#: run keeps about BUCKETS fragments of the family.
BUCKETS = 64

T = TypeVar("T")


def bucketed_texts(
    fragments: Fragments,
    render: Callable[[Any, tuple[str, tuple[T, ...]]], str],
    label: str,
    pieces: Sequence[T],
    names: Sequence[str],
    context: object = None,
) -> list[str]:
    """The text of each of ``pieces``, in order (Note [Fragment buckets]).

    ``render(context, (label, bucket))`` makes the text of a bucket: each of its
    pieces' texts followed by :data:`SEPARATOR`, each made from that piece
    alone.  ``label`` names the family (it is part of each bucket's inputs, so
    families sharing a render function never share a fragment); ``names[i]``
    is the name piece ``i`` is bucketed by.
    """
    members: list[list[int]] = [[] for _ in range(BUCKETS)]
    for index, name in enumerate(names):
        members[zlib.crc32(name.encode()) % BUCKETS].append(index)
    texts = [""] * len(pieces)
    for bucket in members:
        if not bucket:
            continue
        text = fragments.text(render, (label, tuple(pieces[i] for i in bucket)), context)
        parts = text.split(SEPARATOR)
        if parts.pop() or len(parts) != len(bucket):
            raise AssertionError(
                f"{label}: a bucket of {len(bucket)} pieces rendered as {len(parts)} texts"
                f" (a piece must contain no {SEPARATOR!r} and end with one)"
            )
        for index, part in zip(bucket, parts, strict=True):
            texts[index] = part
    return texts
