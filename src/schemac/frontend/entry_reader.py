"""Typed, position-aware reading of one YAML mapping (one entry of a file).

Every loader reads entries the same way: look a key up, check its value has
the expected shape, and on a mismatch report ``expected X, got Y`` at the
value's position and carry on.  :class:`EntryReader` does that once for all
files, and also reports what a dict-based loader cannot see: unknown keys
(with a did-you-mean), keys written twice, and non-string keys.

A getter that finds a malformed value records a diagnostic and returns None,
so the caller falls back to the default and keeps looking for more mistakes.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator

from schemac.diagnostics import DiagnosticSink, FieldSpans, Span, did_you_mean
from schemac.frontend.yaml_nodes import (
    MappingNode,
    Node,
    ScalarNode,
    SequenceNode,
    YamlDocument,
    describe,
    scalar_value,
    span_fields,
    span_of,
    string_value,
)


class EntryReader:
    def __init__(
        self,
        file: str,
        node: MappingNode,
        sink: DiagnosticSink,
        known_keys: Collection[str] | None,
        what: str,
    ) -> None:
        self.file = file
        self.node = node
        self.sink = sink
        self.what = what
        # Locals in the loop: it runs for every key of every entry (~12,000 per load).
        values: dict[str, Node] = {}
        keys: dict[str, Node] = {}
        self._values = values
        self._keys = keys
        for key_node, value_node in node.value:
            key = string_value(key_node)
            if key is None or key in keys or (known_keys is not None and key not in known_keys):
                self._reject_key(key_node, key, known_keys)
                continue
            keys[key] = key_node
            values[key] = value_node

    def _reject_key(self, key_node: Node, key: str | None, known: Collection[str] | None) -> None:
        """Report why ``key_node`` is not read: not a name, a repeat, or unknown."""
        what = self.what
        if key is None:
            self.sink.error(
                self.span(key_node), f"{what} keys must be names, got {describe(key_node)}"
            )
        elif key in self._keys:
            first = self._keys[key].start_mark.line + 1
            self.sink.error(
                self.span(key_node),
                f"key '{key}' appears twice in one {what}",
                f"the first '{key}' is on line {first}",
            )
        else:
            assert known is not None
            self.sink.error(
                self.span(key_node),
                f"unknown key '{key}' in {what}",
                did_you_mean(key, known) or "known keys: " + ", ".join(sorted(known)),
            )

    # -- positions -----------------------------------------------------------
    def span(self, node: Node) -> Span:
        return span_of(self.file, node)

    @property
    def entry_span(self) -> Span:
        return self.span(self.node)

    def value_span(self, key: str) -> Span:
        node = self._values.get(key)
        return self.span(node) if node is not None else self.entry_span

    def key_span(self, key: str) -> Span:
        node = self._keys.get(key)
        return self.span(node) if node is not None else self.entry_span

    def field_spans(self) -> FieldSpans:
        """Each value's :func:`span_of`, packed as :class:`FieldSpans` keeps them.

        Made for every entry (~12,000 fields per load), so no :class:`Span` is
        made for them: :func:`span_fields` gives the fields ``span_of`` would.
        """
        file = self.file
        flat: list[object] = []
        for key, node in self._values.items():
            flat.append(key)
            flat += span_fields(file, node)
        return FieldSpans.packed(tuple(flat))

    # -- raw access ----------------------------------------------------------
    def __contains__(self, key: str) -> bool:
        return key in self._values

    def __iter__(self) -> Iterator[str]:
        """The keys read, in file order (without the nodes :meth:`items` pairs them with)."""
        return iter(self._values)

    def node_of(self, key: str) -> Node | None:
        return self._values.get(key)

    def items(self) -> Iterator[tuple[str, Node, Node]]:
        for key, value in self._values.items():
            yield key, self._keys[key], value

    def wrong_type(self, node: Node, expected: str, hint: str | None = None) -> None:
        self.sink.error(self.span(node), f"expected {expected}, got {describe(node)}", hint)

    # -- typed getters ---------------------------------------------------------
    def string(self, key: str, expected: str = "a string") -> str | None:
        node = self._values.get(key)
        if node is None:
            return None
        # string_of, with the message built only when it is needed.
        value = string_value(node)
        if value is None:
            self.wrong_type(node, f"{expected} for '{key}'")
        return value

    def string_of(self, node: Node, expected: str) -> str | None:
        value = string_value(node)
        if value is None:
            self.wrong_type(node, expected)
        return value

    def boolean(self, key: str, default: bool) -> bool:
        node = self._values.get(key)
        if node is None:
            return default
        if isinstance(node, ScalarNode):
            value = scalar_value(node)
            if isinstance(value, bool):
                return value
        self.wrong_type(node, f"True or False for '{key}'", "write True or False without quotes")
        return default

    def string_list(self, key: str, allow_single: bool = False) -> list[tuple[str, ScalarNode]]:
        """A list of strings; with ``allow_single`` a lone string counts as one."""
        node = self._values.get(key)
        if node is None:
            return []
        if allow_single and isinstance(node, ScalarNode) and isinstance(scalar_value(node), str):
            return [(node.value, node)]
        if not isinstance(node, SequenceNode):
            self.wrong_type(node, f"a list of strings for '{key}'")
            return []
        items: list[tuple[str, ScalarNode]] = []
        for item in node.value:
            text = self.string_of(item, f"a string in '{key}'")
            if text is not None and isinstance(item, ScalarNode):
                items.append((text, item))
        return items

    def mapping(self, key: str) -> MappingNode | None:
        node = self._values.get(key)
        if node is None:
            return None
        if isinstance(node, MappingNode):
            return node
        self.wrong_type(node, f"a mapping for '{key}'")
        return None


def text_start(node: ScalarNode) -> tuple[int, int]:
    """1-based line and column of the first character of a scalar's text.

    Plain scalars map 1:1 to their text; a one-line quoted scalar starts one
    column after its quote.  Other styles (block scalars, folded lines) have no
    simple mapping, so diagnostics inside them point at the scalar's start.
    """
    line, column = node.start_mark.line + 1, node.start_mark.column + 1
    if node.style in ('"', "'"):
        column += 1
    elif node.style in ("|", ">"):
        line += 1
    return line, column


def maps_exactly(node: ScalarNode) -> bool:
    """Whether every character of the value sits at its own column in the file."""
    if node.start_mark.line != node.end_mark.line:
        return False
    width = node.end_mark.column - node.start_mark.column
    if not node.style:  # plain: None from the Python parser, "" from libyaml
        return width == len(node.value)
    if node.style in ("'", '"'):
        return width == len(node.value) + 2
    return False


def top_level_entries(
    doc: YamlDocument, sink: DiagnosticSink, what: str, example: str
) -> list[MappingNode]:
    """The mappings of a top-level list; anything else is reported."""
    if doc.root is None:
        return []
    if not isinstance(doc.root, SequenceNode):
        sink.error(
            span_of(doc.file, doc.root),
            f"expected a list of {what} at the top level, got {describe(doc.root)}",
            "each entry starts with '- '",
        )
        return []
    entries: list[MappingNode] = []
    for node in doc.root.value:
        if isinstance(node, MappingNode):
            entries.append(node)
        else:
            sink.error(
                span_of(doc.file, node),
                f"expected a mapping (key: value lines), got {describe(node)}",
                example,
            )
    return entries
