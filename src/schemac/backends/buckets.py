"""Many small per-operator texts rendered as a few fragments: buckets by name.

Note [Fragment buckets]
~~~~~~~~~~~~~~~~~~~~~~~
A file family made of thousands of small pieces (torch's ~1,700 Python
bindings) would pay, as one fragment each (Note [Fragment reuse]), a store
lookup and a record per piece: ~13 us, a fifth of rendering a binding
(measured on torch's files).  So the pieces are rendered in :data:`BUCKETS`
buckets: a piece goes to the bucket its name hashes to (CRC-32, the same in
every run and process), each bucket is one fragment whose inputs are its
pieces' inputs in order, and whose text is each piece's text followed by
:data:`SEPARATOR`.  An edit of one operator changes the inputs of the buckets
holding its pieces: those are rendered again (about 1/64 of a file's pieces
each), the others are read back and split.

A bucket's key covers exactly the pieces it holds, in order, so adding or
removing a piece changes only its own bucket's key; the texts come back in
the order of the pieces, whatever the buckets.
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


def bucket_of(name: str) -> int:
    """The bucket a piece named ``name`` goes to: the same in every run."""
    return zlib.crc32(name.encode("utf-8", "surrogatepass")) % BUCKETS


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
        members[bucket_of(name)].append(index)
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
