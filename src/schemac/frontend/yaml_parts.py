"""A top-level YAML list composed a few dozen items at a time.

Note [Lists composed in parts]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
torch's ``native_functions.yaml`` composes to ~10 MiB of nodes (a
``ScalarNode`` and two marks per value), which the loader turns into a few
MiB of IR and drops.  Composed whole, the tree was alive while every
function was built, so the IR's objects were spread over the same memory
pages as the tree's; once the tree was freed those pages stayed mostly empty
but could not be given back, and a cold ``-t headers`` carried ~10 MiB more
than it used from the load to its end.  So a block list whose items start at
column 0 (``- func: ...``) is cut before every :data:`PART_ITEMS`-th item and
each part is composed and loaded on its own: at most one part's nodes are
alive at a time.

A part is composed from its own text preceded by as many line breaks as the
file has before it, so its marks give the lines, columns and offsets of the
whole file (offsets index the part's text, which is where
:func:`~schemac.frontend.source_keys.entry_source_key` reads them).  Cutting
at a line that starts with ``- `` or ``-`` and a line break gives the items
the whole file gives, or fails to compose: that line is a new item of the
top-level list in block context, and is inside a quoted scalar or a flow
collection only if the part before it leaves one open, which does not
compose.  Everything else that could make a part differ from its place in
the whole is refused up front (:meth:`YamlParts.of`): anchors (an alias
reaching another part, an anchor defined twice), directives and document
markers, line breaks other than ``\\n`` and non-ASCII text (libyaml counts
bytes, and knows more line breaks).  Then, if any part fails to compose or is
not a block list, the caller composes the whole text instead
(:class:`PartFailed`): what it reports is what a whole composition reports.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import attrs

from schemac.diagnostics import Diagnostic
from schemac.frontend.input_files import InputFileError, read_input_text
from schemac.frontend.source_keys import has_anchor
from schemac.frontend.yaml_nodes import SequenceNode, YamlDocument, parse_yaml_text

#: Items per part: ~20 parts for torch's 2,600 entries.  Each part's text is
#: preceded by the line breaks before it (~0.15 MB of them in all, which
#: libyaml scans at ~50 instructions each).
PART_ITEMS = 128

#: The line break before an item of a top-level block list.  Not ``^-`` with
#: MULTILINE: a pattern without a leading literal is tried at every position.
_ITEM = re.compile(r"\n-[ \n]")
#: A directive (``%YAML``, ``%TAG``) or a document marker (``---``, ``...``).
_DOCUMENTS = re.compile(r"^(?:%|---|\.\.\.)", re.MULTILINE)


class PartFailed(Exception):
    """A part did not compose to a block list: compose the whole text instead."""


@attrs.frozen
class YamlParts:
    """A file's text cut into parts (Note [Lists composed in parts])."""

    file: str
    text: str
    #: Where each part starts in ``text``: 0, then an item's start.
    starts: tuple[int, ...]

    @classmethod
    def of(cls, text: str, file: str) -> YamlParts | None:
        """``text`` cut into parts; None if it must be composed whole."""
        if (
            not text.isascii()
            or "\r" in text
            or _DOCUMENTS.search(text) is not None
            or has_anchor(text)
        ):
            return None
        items = [match.start() + 1 for match in _ITEM.finditer(text)]
        if text.startswith(("- ", "-\n")):
            items.insert(0, 0)
        cuts = items[PART_ITEMS::PART_ITEMS]
        if not cuts:
            return None
        return cls(file, text, (0, *cuts))

    def parts(self) -> Iterator[YamlPart]:
        """Each part, in order, not composed yet."""
        text = self.text
        lines = 0
        counted = 0
        for start, end in zip(self.starts, (*self.starts[1:], len(text)), strict=True):
            lines += text.count("\n", counted, start)
            counted = start
            yield YamlPart(self.file, lines, text[start:end])

    def documents(self) -> Iterator[YamlDocument]:
        """Each part composed, in order; raises :class:`PartFailed`."""
        for part in self.parts():
            # No local keeps a part's nodes: they go before the next one is composed.
            yield part.composed()

    def whole(self) -> tuple[YamlDocument | None, list[Diagnostic]]:
        """The whole text composed, as :func:`~schemac.frontend.yaml_nodes.read_yaml` gives it."""
        return parse_yaml_text(self.text, self.file)


@attrs.frozen
class YamlPart:
    """One part of a :class:`YamlParts`: its text and the lines of the file before it."""

    file: str
    lines_before: int
    text: str

    def composed(self) -> YamlDocument:
        """The part composed with the file's marks; raises :class:`PartFailed`."""
        doc, problems = parse_yaml_text("\n" * self.lines_before + self.text, self.file)
        if problems or doc is None or not isinstance(doc.root, SequenceNode) or doc.root.flow_style:
            raise PartFailed
        return doc


def read_yaml_list(
    path: str | Path, display_name: str | None = None
) -> tuple[YamlParts | YamlDocument | None, list[Diagnostic]]:
    """Read a file that should hold a top-level list: in parts if it can be cut,
    else composed whole (:func:`~schemac.frontend.yaml_nodes.read_yaml`)."""
    file = display_name or str(path)
    try:
        text = read_input_text(path, file)
    except InputFileError as error:
        return None, [error.diagnostic]
    parts = YamlParts.of(text, file)
    if parts is not None:
        return parts, []
    return parse_yaml_text(text, file)
