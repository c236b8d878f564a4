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
the order of the pieces, whatever the buckets.  A piece should be the cheap
*source* of its texts, with whatever is derived from it derived in the
render: the key then costs a digest of the sources, and an edit derives only
the pieces of the buckets it changed (the Python bindings: Note [Binding
sources] in ``backends/python/operators.py``).  A piece may have several
texts (:func:`bucketed_parts`: a binding, its method-table entry, its
forward declaration), each ended by :data:`SEPARATOR`.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeVar

from schemac.backends.reuse import Fragments
from schemac.diagnostics import Diagnostic, InputError

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
    one = bucketed_parts(fragments, render, label, pieces, names, context, parts=1)
    return [texts[0] for texts in one]


def bucketed_parts(
    fragments: Fragments,
    render: Callable[[Any, tuple[str, tuple[T, ...]]], str],
    label: str,
    pieces: Sequence[T],
    names: Sequence[str],
    context: object = None,
    *,
    parts: int,
) -> list[tuple[str, ...]]:
    """:func:`bucketed_texts` for pieces of ``parts`` texts each: a bucket's text
    is each piece's texts in turn, each followed by :data:`SEPARATOR`."""
    result: list[tuple[str, ...]] = [()] * len(pieces)
    for bucket, texts in _rendered_buckets(fragments, render, label, pieces, names, context, parts):
        for k, index in enumerate(bucket):
            result[index] = tuple(texts[k * parts : (k + 1) * parts])
    return result


def _rendered_buckets(
    fragments: Fragments,
    render: Callable[[Any, tuple[str, tuple[T, ...]]], str],
    label: str,
    pieces: Sequence[T],
    names: Sequence[str],
    context: object,
    parts: int,
) -> Iterator[tuple[list[int], list[str]]]:
    """Each non-empty bucket's piece indices and its texts, split.

    A bucket whose render is an input error does not hide the others' errors:
    the rest are rendered, and every error is raised together at the end.
    """
    members: list[list[int]] = [[] for _ in range(BUCKETS)]
    for index, name in enumerate(names):
        members[bucket_of(name)].append(index)
    problems: list[Diagnostic] = []
    for bucket in members:
        if not bucket:
            continue
        try:
            text = fragments.text(render, (label, tuple(pieces[i] for i in bucket)), context)
        except InputError as error:
            problems += error.diagnostics
            continue
        texts = text.split(SEPARATOR)
        if texts.pop() or len(texts) != parts * len(bucket):
            raise AssertionError(
                f"{label}: a bucket of {len(bucket)} pieces rendered as {len(texts)} texts"
                f" (a piece must contain no {SEPARATOR!r} and end each of its {parts}"
                " texts with one)"
            )
        yield bucket, texts
    if problems:
        raise InputError(problems)
