"""The source key of a loaded entry (Note [Functions keyed by their source] in
:mod:`schemac.ir.native`): a digest of the entry's text and its column, for
files where nothing outside an entry's text can change what the entry
composes to."""

from __future__ import annotations

from schemac.digests import hex_of
from schemac.frontend.yaml_nodes import POSITIONS_IN_BYTES, MappingNode, YamlDocument

#: What may stand right before an anchor's ``&`` besides whitespace (and the
#: start of the text), and what may not follow it: YAML's flow indicators.
_BEFORE_ANCHOR = frozenset("[{,")
_NOT_AN_ANCHOR_NAME = frozenset("[]{},")


def entries_keyable(text: str) -> bool:
    """Whether every entry of a document whose text is ``text`` composes from
    its own text alone: no anchor (so no alias reaches another entry's node),
    no directive (``%TAG`` changes what a tag means), and marks that index the
    text (the C parser's count bytes: equal to characters only in an ASCII
    text)."""
    if POSITIONS_IN_BYTES and not text.isascii():
        return False
    return not has_anchor(text) and not _has_directive(text)


def has_anchor(text: str) -> bool:
    """Whether ``text`` has an anchor (``&name``) as a node property: an ``&``
    at the start of a line, after whitespace or a flow indicator, followed by
    a name character.  The whole text is searched, comments included (a match
    in a comment only costs the keys, or the parts of Note [Lists composed in
    parts] in :mod:`.yaml_parts`).

    Each ``&`` is found with ``str.find`` and its two neighbours looked at:
    torch's files hold a handful, where a regular expression trying every
    whitespace character of the 600 kB text cost ~20 ms of each load."""
    at = text.find("&")
    while at >= 0:
        before = text[at - 1] if at else "\n"
        after = text[at + 1 : at + 2]
        if (
            (before.isspace() or before in _BEFORE_ANCHOR)
            and after
            and not after.isspace()
            and after not in _NOT_AN_ANCHOR_NAME
        ):
            return True
        at = text.find("&", at + 1)
    return False


def _has_directive(text: str) -> bool:
    """Whether a line of ``text`` starts with ``%`` (``%YAML``, ``%TAG``)."""
    return text.startswith("%") or "\n%" in text


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
