"""The source key of a loaded entry (Note [Functions keyed by their source] in
:mod:`schemac.ir.native`): a digest of the entry's text and its column, for
files where nothing outside an entry's text can change what the entry
composes to."""

from __future__ import annotations

from schemac.digests import hex_of
from schemac.frontend.yaml_nodes import (
    POSITIONS_IN_BYTES,
    MappingNode,
    Node,
    ScalarNode,
    YamlDocument,
)
from schemac.ir.slots import BLIND_ASPECTS

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
    """Whether ``text`` may have an anchor (``&name``) as a node property: an
    ``&`` at the start of a line, after whitespace or a flow indicator,
    followed by a name character, where a node may start
    (:func:`_may_start_a_node`).  The whole text is searched, comments and
    quoted scalars included (a match there only costs the keys, or the parts of
    Note [Lists composed in parts] in :mod:`.yaml_parts`).

    Each ``&`` is found with ``str.find`` and its two neighbours looked at:
    torch's files hold a few dozen, where a regular expression trying every
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
            and _may_start_a_node(text, at)
        ):
            return True
        at = text.find("&", at + 1)
    return False


#: What a node's properties may follow on their line: block and flow indicators.
_BEFORE_A_NODE = frozenset("-?:,[{")
#: What ends a line for libyaml (YAML 1.1).
_LINE_BREAKS = "\n\r\x85\u2028\u2029"


def _may_start_a_node(text: str, at: int) -> bool:
    """Whether a node may start at ``at``, judged by its line before it: only
    blanks there, or an indicator after which a node starts, or a tag (the
    other node property).  Anywhere else an ``&`` is text of a plain scalar,
    as in derivatives.yaml's C++ conditions (``a.defined() && b``)."""
    start = max(text.rfind(end, 0, at) for end in _LINE_BREAKS) + 1
    words = text[start:at].split()
    return not words or words[-1][-1] in _BEFORE_A_NODE or words[-1].startswith("!")


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


def entry_blind_keys(
    doc: YamlDocument, node: MappingNode, schema_blind_to_defaults: str
) -> tuple[str, ...] | None:
    """The blind keys of an entry :func:`entry_source_key` keys, one per
    :data:`~schemac.ir.slots.BLIND_ASPECTS` (Note [Keys blind to an aspect]):
    the digest of its text with the value of each ``dispatch:`` entry (its
    kernel), the ``func:`` value (by ``schema_blind_to_defaults``, the schema
    printed with its defaults as ``?``: the grammar takes canonical text only,
    so the value as written is the schema's text), or both replaced by a mark.
    None when the entry has no ``func:`` scalar (it loaded to no function)."""
    func: Node | None = None
    kernels: list[Node] = []
    for key, value in node.value:
        if not isinstance(key, ScalarNode):
            continue
        if key.value == "func" and isinstance(value, ScalarNode):
            func = value
        elif key.value == "dispatch" and isinstance(value, MappingNode):
            kernels = [kernel for _, kernel in value.value]
    if func is None:
        return None
    blanked = [(kernel, "") for kernel in kernels]
    schema = [(func, schema_blind_to_defaults)]
    replaced = {
        "kernel-names": blanked,
        "defaults": schema,
        "kernel-names+defaults": blanked + schema,
    }
    return tuple(_blind_key(doc, node, aspect, replaced[aspect]) for aspect in BLIND_ASPECTS)


def _blind_key(
    doc: YamlDocument, node: MappingNode, aspect: str, replaced: list[tuple[Node, str]]
) -> str:
    """The digest of ``node``'s text with each node of ``replaced`` written as a
    NUL-delimited mark (NUL is not allowed in a YAML text, so no text imitates one)."""
    text = doc.text
    pieces = [f"blind {aspect}\0{node.start_mark.column}\0{node.flow_style}\0"]
    at = node.start_mark.index
    for inner, replacement in sorted(replaced, key=lambda pair: pair[0].start_mark.index):
        pieces.append(text[at : inner.start_mark.index])
        pieces.append(f"\0{replacement}\0")
        at = inner.end_mark.index
    pieces.append(text[at : node.end_mark.index])
    return hex_of("".join(pieces).encode("utf-8", "surrogatepass"))
