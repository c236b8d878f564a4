"""The source key of a loaded entry (Note [Functions keyed by their source] in
:mod:`schemac.ir.native`): a digest of the entry's text and its column, for
files where nothing outside an entry's text can change what the entry
composes to."""

from __future__ import annotations

import re

from schemac.digests import hex_of
from schemac.frontend.yaml_nodes import POSITIONS_IN_BYTES, MappingNode, YamlDocument

#: An anchor (``&name``) as a node property: after a line start, a space or a
#: flow indicator, and followed by a name character.  Searched in the whole
#: text, comments included: a match in a comment only costs the keys.
_ANCHOR = re.compile(r"(?:^|[\s\[\{,])&[^\s\[\]\{\},]", re.MULTILINE)
#: A directive line (``%YAML``, ``%TAG``).
_DIRECTIVE = re.compile(r"^%", re.MULTILINE)


def entries_keyable(text: str) -> bool:
    """Whether every entry of a document whose text is ``text`` composes from
    its own text alone: no anchor (so no alias reaches another entry's node),
    no directive (``%TAG`` changes what a tag means), and marks that index the
    text (the C parser's count bytes: equal to characters only in an ASCII
    text)."""
    if POSITIONS_IN_BYTES and not text.isascii():
        return False
    return not has_anchor(text) and _DIRECTIVE.search(text) is None


def has_anchor(text: str) -> bool:
    """Whether ``text`` may define an anchor (a match in a comment counts).

    :data:`_ANCHOR` is tried only around each ``&``: searched over the whole
    text it tests every position (it starts with no literal), ~0.25 G
    instructions on torch's 600 KB ``native_functions.yaml``, which holds
    five ``&``.  A match holds an ``&``, so this finds what that search does."""
    at = text.find("&")
    while at >= 0:
        if _ANCHOR.search(text, max(at - 1, 0), at + 2) is not None:
            return True
        at = text.find("&", at + 1)
    return False


def entry_source_key(doc: YamlDocument, node: MappingNode) -> str:
    """The digest of ``node``'s text in ``doc`` and the column it starts at:
    equal for two entries only if loading them gives equal functions (in a
    document :func:`entries_keyable` accepts), spans aside.

    Not the line or the file: fingerprints skip spans, so an entry moved by
    lines inserted above it keeps its key, as its walked encoding would.  The
    column stays in: block YAML reads the entry's later lines by their
    indentation, which the text holds as absolute columns."""
    start, end = node.start_mark, node.end_mark
    head = f"{start.column}\0{node.flow_style}\0"
    return hex_of((head + doc.text[start.index : end.index]).encode("utf-8", "surrogatepass"))
