"""The structured values inside a native-function entry.

Most keys of a native_functions.yaml entry hold a bool or a name; a few hold
small languages of their own: ``dispatch:`` (a table whose keys are
comma-separated dispatch-key lists), ``precomputed:`` (``name -> Type a, Type b``
lines plus an optional line of added arguments), ``ufunc_inner_loop:``
(``name (Dtype, Dtype)``) and ``autogen:`` (a comma-separated list of operator
names).  Each is parsed here into IR, reporting mistakes at the exact
position inside the YAML value where possible.
"""

from __future__ import annotations

import re
from collections.abc import Collection

from schemac.diagnostics import SchemacError, Span, did_you_mean
from schemac.frontend.entry_reader import EntryReader, maps_exactly, text_start
from schemac.frontend.schema_parser import SchemaParser
from schemac.frontend.yaml_nodes import (
    MappingNode,
    ScalarNode,
    scalar_value,
    span_of,
    string_value,
)
from schemac.ir.dispatch import KNOWN_DISPATCH_KEYS
from schemac.ir.names import OperatorName
from schemac.ir.native import DispatchEntry, Precompute, UfuncInnerLoop
from schemac.ir.schema import Argument

#: The keys of a ``ufunc_inner_loop:`` table; a bare string means ``Generic``.
UFUNC_KEYS = (
    "CUDAFunctor",
    "CUDAFunctorOnOther",
    "CUDAFunctorOnSelf",
    "CPUScalar",
    "CPUVector",
    "ScalarOnly",
    "Generic",
)

_UFUNC_LOOP = re.compile(r"([A-Za-z_][A-Za-z0-9_]*) \(([A-Za-z0-9_]+(?:, [A-Za-z0-9_]+)*)\)")


def piece_position(node: ScalarNode, offset: int) -> tuple[int, int]:
    """Where character ``offset`` of a scalar's value is in the file.

    Exact for one-line plain and simply-quoted scalars; otherwise the start of
    the scalar (the best a folded or escaped value allows).
    """
    line, column = text_start(node)
    return (line, column + offset) if maps_exactly(node) else (line, column)


def piece_span(reader: EntryReader, node: ScalarNode, offset: int, length: int) -> Span:
    line, column = piece_position(node, offset)
    if not maps_exactly(node):
        return reader.span(node)
    return Span.point(reader.file, line, column, length)


def split_pieces(text: str, separator: str = ",") -> list[tuple[str, int]]:
    """Split at ``separator``; each piece stripped, with its offset in ``text``."""
    if separator not in text and text.strip() == text:
        return [(text, 0)]
    pieces: list[tuple[str, int]] = []
    offset = 0
    for raw in text.split(separator):
        stripped = raw.strip()
        lead = len(raw) - len(raw.lstrip())
        pieces.append((stripped, offset + lead))
        offset += len(raw) + len(separator)
    return pieces


#: The keys tuple of a row that names one known key, shared by every such row
#: (~2,900 rows name ~50 keys); built from the known keys, not from input.
_ONE_KEY: dict[str, tuple[str]] = {key: (key,) for key in KNOWN_DISPATCH_KEYS}


def read_dispatch(reader: EntryReader) -> tuple[DispatchEntry, ...] | None:
    table = reader.mapping("dispatch")
    if table is None:
        return None
    entries: list[DispatchEntry] = []
    seen: dict[str, ScalarNode] = {}  # key -> the key node that first gave it
    file = reader.file
    for key_node, value_node in table.value:
        # reader.string_of for both, inlined (every row of every table).
        keys_text = string_value(key_node)
        if keys_text is None:
            reader.wrong_type(key_node, "dispatch keys such as 'CPU, CUDA'")
        kernel = string_value(value_node)
        if kernel is None:
            reader.wrong_type(value_node, "a kernel name")
        if keys_text is None or kernel is None:
            continue
        assert isinstance(key_node, ScalarNode)
        keys: tuple[str, ...] | None = _ONE_KEY.get(keys_text)
        if keys is not None and keys_text not in seen:
            # One known key, new in this table: most rows, and what the loop
            # below would find (a known key has no ',' and no spaces to strip).
            seen[keys_text] = key_node
        else:
            keys = tuple(_dispatch_keys(reader, key_node, keys_text, seen))
        if not kernel.strip():
            reader.sink.error(reader.span(value_node), "empty kernel name")
            continue
        if keys:
            entries.append(
                DispatchEntry(keys, kernel, span_of(file, key_node), span_of(file, value_node))
            )
    return tuple(entries)


def _dispatch_keys(
    reader: EntryReader, key_node: ScalarNode, keys_text: str, seen: dict[str, ScalarNode]
) -> list[str]:
    """The keys of a ``dispatch:`` row (``CPU, CUDA``); what is wrong is reported."""
    keys = _plain_dispatch_keys(keys_text, seen)
    if keys is None:
        return _checked_dispatch_keys(reader, key_node, keys_text, seen)
    for key in keys:
        seen[key] = key_node
    return keys


def _plain_dispatch_keys(keys_text: str, seen: Collection[str]) -> list[str] | None:
    """The keys of a row that are known, new and distinct, written with ", "; else None.

    Most rows of several keys: :func:`_checked_dispatch_keys` would take each
    as it is (known keys hold no ',' and no space to strip) and report nothing.
    """
    keys = keys_text.split(", ")
    for key in keys:
        if key not in KNOWN_DISPATCH_KEYS or key in seen:
            return None
    return keys if len(set(keys)) == len(keys) else None


def _checked_dispatch_keys(
    reader: EntryReader, key_node: ScalarNode, keys_text: str, seen: dict[str, ScalarNode]
) -> list[str]:
    keys: list[str] = []
    for key, offset in split_pieces(keys_text):
        if key in KNOWN_DISPATCH_KEYS and key not in seen:
            seen[key] = key_node
            keys.append(key)
            continue
        span = piece_span(reader, key_node, offset, len(key))
        if not key:
            reader.sink.error(span, "empty dispatch key", "separate keys with ', '")
        elif key not in KNOWN_DISPATCH_KEYS:
            reader.sink.error(
                span,
                f"unknown dispatch key '{key}'",
                did_you_mean(key, KNOWN_DISPATCH_KEYS),
            )
        else:
            reader.sink.error(
                span,
                f"dispatch key '{key}' is given twice",
                f"the first is on line {seen[key].start_mark.line + 1}",
            )
    return keys


def read_autogen(reader: EntryReader, parser: SchemaParser) -> tuple[OperatorName, ...]:
    node = reader.node_of("autogen")
    text = reader.string("autogen", "a comma-separated list of operator names")
    if node is None or text is None or not text.strip():
        return ()
    assert isinstance(node, ScalarNode)
    names: list[OperatorName] = []
    # piece_position, with the node's position looked up once.
    line, start = text_start(node)
    exact = maps_exactly(node)
    for piece, offset in split_pieces(text):
        column = start + offset if exact else start
        if not piece:
            reader.sink.error(
                piece_span(reader, node, offset, 1),
                "empty name in autogen list",
                "separate operator names with ', '",
            )
            continue
        try:
            names.append(parser.operator_name(piece, file=reader.file, line=line, column=column))
        except SchemacError as error:
            reader.sink.extend(error.diagnostics)
    return tuple(names)


def read_operator_name(reader: EntryReader, parser: SchemaParser, key: str) -> OperatorName | None:
    node = reader.node_of(key)
    text = reader.string(key, "an operator name")
    if node is None or text is None:
        return None
    assert isinstance(node, ScalarNode)
    line, column = text_start(node)
    if "::" in text:
        reader.sink.error(
            reader.span(node),
            f"'{key}' cannot name a namespace",
            "the operator is looked up in the entry's own namespace",
        )
        return None
    try:
        return parser.operator_name(text, file=reader.file, line=line, column=column)
    except SchemacError as error:
        reader.sink.extend(error.diagnostics)
        return None


def read_precomputed(reader: EntryReader, parser: SchemaParser) -> Precompute | None:
    lines = reader.string_list("precomputed")
    if not lines:
        if "precomputed" in reader:
            node = reader.node_of("precomputed")
            if node is not None and not isinstance(node, ScalarNode):
                reader.sink.error(reader.value_span("precomputed"), "'precomputed' is empty")
        return None
    replace: list[tuple[str, tuple[Argument, ...]]] = []
    add: tuple[Argument, ...] = ()
    for index, (text, node) in enumerate(lines):
        arrow = text.find(" -> ")
        if arrow < 0:
            if index != len(lines) - 1:
                reader.sink.error(
                    reader.span(node),
                    "a precomputed line without ' -> ' must be the last line",
                    "write 'kernel_arg -> Type name, ...' to replace an argument; "
                    "only the last line may list added arguments",
                )
                continue
            add = _precomputed_arguments(reader, parser, node, text, 0)
            continue
        replaced = text[:arrow]
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", replaced):
            reader.sink.error(
                piece_span(reader, node, 0, max(len(replaced), 1)),
                f"'{replaced}' is not an argument name",
                "write 'kernel_arg -> Type name, ...'",
            )
            continue
        replacement = _precomputed_arguments(reader, parser, node, text, arrow + len(" -> "))
        replace.append((replaced, replacement))
    return Precompute(tuple(replace), add, span=reader.value_span("precomputed"))


def _precomputed_arguments(
    reader: EntryReader, parser: SchemaParser, node: ScalarNode, text: str, start: int
) -> tuple[Argument, ...]:
    arguments: list[Argument] = []
    for piece, offset in split_pieces(text[start:]):
        line, column = piece_position(node, start + offset)
        try:
            arguments.append(parser.argument(piece, file=reader.file, line=line, column=column))
        except SchemacError as error:
            reader.sink.extend(error.diagnostics)
    return tuple(arguments)


def read_ufunc_inner_loop(reader: EntryReader) -> tuple[UfuncInnerLoop, ...]:
    node = reader.node_of("ufunc_inner_loop")
    if node is None:
        return ()
    if isinstance(node, ScalarNode) and isinstance(scalar_value(node), str):
        loop = _ufunc_loop(reader, "Generic", node)
        return (loop,) if loop else ()
    if not isinstance(node, MappingNode):
        reader.wrong_type(node, "a string or a mapping for 'ufunc_inner_loop'")
        return ()
    loops: list[UfuncInnerLoop] = []
    for key_node, value_node in node.value:
        key = reader.string_of(key_node, "a ufunc key")
        if key is None:
            continue
        if key not in UFUNC_KEYS:
            reader.sink.error(
                reader.span(key_node),
                f"unknown ufunc key '{key}'",
                did_you_mean(key, UFUNC_KEYS) or "known keys: " + ", ".join(UFUNC_KEYS),
            )
            continue
        if (
            not isinstance(value_node, ScalarNode)
            or reader.string_of(value_node, "a ufunc loop") is None
        ):
            if isinstance(value_node, ScalarNode):
                continue
            reader.wrong_type(value_node, "a ufunc loop such as 'add (AllAndComplex, Half)'")
            continue
        loop = _ufunc_loop(reader, key, value_node)
        if loop:
            loops.append(loop)
    return tuple(loops)


def _ufunc_loop(reader: EntryReader, key: str, node: ScalarNode) -> UfuncInnerLoop | None:
    match = _UFUNC_LOOP.fullmatch(node.value)
    if match is None:
        reader.sink.error(
            reader.span(node),
            f"malformed ufunc inner loop '{node.value}'",
            "write 'name (Dtype, Dtype, ...)', e.g. 'add (AllAndComplex, BFloat16, Half)'",
        )
        return None
    dtypes = tuple(match.group(2).split(", "))
    return UfuncInnerLoop(key, match.group(1), dtypes, span=reader.span(node))
