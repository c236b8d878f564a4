"""derivatives.yaml -> :class:`~schemac.ir.derivatives.DerivativeEntry` entries.

An entry names an operator by its full schema (``name:``) and gives formulas
keyed by variable names: input names for backward formulas, output names
(``result``, ``result0``, a named return) for forward-mode ones.  Formulas may
be grouped per autograd key under ``dispatch:``; an entry without it has one
``Default`` group.

Checked here, because the file and native_functions.yaml are both at hand:
the schema names an operator that exists, every formula variable names an
argument or an output of it, and no schema has two entries.  What formulas
*use* (``grad``, saved properties) is for the derivative-matching pass.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from schemac.diagnostics import DiagnosticSink, SchemacError, Span, did_you_mean
from schemac.frontend.entry_reader import EntryReader, text_start, top_level_entries
from schemac.frontend.failed_entries import FailedEntries
from schemac.frontend.native_fields import piece_span, split_pieces
from schemac.frontend.part_memo import (
    PartMemo,
    load_parts,
    part_key,
    pickled_entries,
    unpickled_entries,
)
from schemac.frontend.schema_parser import SchemaParser
from schemac.frontend.yaml_nodes import (
    MappingNode,
    Node,
    ScalarNode,
    SequenceNode,
    YamlDocument,
    scalar_value,
    string_value,
)
from schemac.frontend.yaml_parts import YamlParts
from schemac.ir.derivatives import DerivativeEntry, DispatchFormulas, Formula
from schemac.ir.dispatch import KNOWN_DISPATCH_KEYS
from schemac.ir.names import OperatorName
from schemac.ir.native import NativeFunction
from schemac.ir.schema import FunctionSchema

RESERVED_KEYS = ("name", "dispatch", "output_differentiability")

DEFAULT_KEY = "Default"

#: The autograd keys a ``dispatch:`` group may name, besides ``Default``.
AUTOGRAD_KEYS = frozenset(
    key
    for key in KNOWN_DISPATCH_KEYS
    if key.startswith("Autograd")
    and key not in ("Autograd", "AutogradOther", "AutogradFunctionality")
)

_RESULT_NAME = re.compile(r"result\d*")


def load_derivatives(
    doc: YamlDocument | YamlParts,
    parser: SchemaParser,
    functions: Mapping[OperatorName, NativeFunction] | None,
    sink: DiagnosticSink,
    failed: FailedEntries | None = None,
    memo: PartMemo | None = None,
) -> tuple[DerivativeEntry, ...]:
    """Load the entries; ``functions`` maps operator names to their functions.

    Names are unique in a native_functions.yaml loaded without errors, so an
    entry names a known operator when the one of its name has its schema text.

    With ``functions`` None (no native_functions.yaml loaded without errors)
    the cross-file check is skipped rather than reported as a flood of misses.
    ``failed``: the families whose native entries failed to load; an entry of
    one names no missing operator (Note [Every error in one run]) and is left
    out, as is every entry with an error of its own.  ``doc`` in parts raises
    :class:`~schemac.frontend.yaml_parts.PartFailed` when a part does not
    compose; ``memo`` then holds parts an earlier run loaded (Note [Loaded
    parts remembered] in :mod:`.part_memo`): a part is recalled only if each
    of its entries still names an operator of ``functions``.
    """
    entries: list[DerivativeEntry] = []
    # Entries by operator name: schemas that print alike have the same name,
    # so only entries sharing a name (rare) are printed to compare them.
    by_name: dict[OperatorName, list[DerivativeEntry]] = {}
    if isinstance(doc, YamlDocument):
        _load_part(doc, parser, functions, sink, failed, entries, by_name)
        return tuple(entries)
    if functions is None:
        memo = None  # the check a recalled part must pass again cannot be made
    known = functions or {}
    load_parts(
        doc.parts(),
        memo,
        lambda part: part_key("derivatives", part.file, part.lines_before, part.text),
        # Recalled only if each entry still names an operator: loading checks that.
        lambda data: _still_named(unpickled_entries(data), known),
        lambda entry: _admit(entry, sink, entries, by_name),
        lambda part: _load_part(part.composed(), parser, functions, sink, failed, entries, by_name),
        entries,
        pickled_entries,
        sink,
    )
    return tuple(entries)


def _still_named(
    entries: tuple[DerivativeEntry, ...] | None, functions: Mapping[OperatorName, NativeFunction]
) -> tuple[DerivativeEntry, ...] | None:
    """``entries`` if each names an operator of ``functions``, else None."""
    if entries is None or not all(_names_an_operator(e.schema, functions) for e in entries):
        return None
    return entries


def _load_part(
    doc: YamlDocument,
    parser: SchemaParser,
    functions: Mapping[OperatorName, NativeFunction] | None,
    sink: DiagnosticSink,
    failed: FailedEntries | None,
    entries: list[DerivativeEntry],
    by_name: dict[OperatorName, list[DerivativeEntry]],
) -> None:
    example = "an entry looks like '- name: foo(Tensor self) -> Tensor' and '  self: grad'"
    for node in top_level_entries(doc, sink, "derivative entries", example):
        errors_before = len(sink.diagnostics)
        entry = _load_entry(doc.file, node, parser, functions, sink, failed)
        if entry is None:
            continue
        if len(sink.diagnostics) > errors_before or (
            failed is not None and failed.is_failed(entry.schema.name)
        ):
            continue
        _admit(entry, sink, entries, by_name)


def _admit(
    entry: DerivativeEntry,
    sink: DiagnosticSink,
    entries: list[DerivativeEntry],
    by_name: dict[OperatorName, list[DerivativeEntry]],
) -> None:
    """Add ``entry`` unless an entry for the same schema came before."""
    namesakes = by_name.setdefault(entry.schema.name, [])
    first = _first_printed_alike(entry, namesakes)
    if first is not None:
        sink.error(
            entry.schema.span,
            f"derivatives for '{entry.schema}' are defined twice",
            f"the first definition is on line {first.schema.span.line}",
        )
        return
    namesakes.append(entry)
    entries.append(entry)


def _first_printed_alike(
    entry: DerivativeEntry, namesakes: list[DerivativeEntry]
) -> DerivativeEntry | None:
    if not namesakes:
        return None
    text = str(entry.schema)
    return next((other for other in namesakes if str(other.schema) == text), None)


def _load_entry(
    file: str,
    node: MappingNode,
    parser: SchemaParser,
    functions: Mapping[OperatorName, NativeFunction] | None,
    sink: DiagnosticSink,
    failed: FailedEntries | None,
) -> DerivativeEntry | None:
    reader = EntryReader(file, node, sink, None, "derivative entry")
    entry_span = reader.entry_span  # one span for the entry and its Default group
    schema = _read_schema(reader, parser, functions, failed)
    differentiability, conditions = _read_output_differentiability(reader)
    groups: list[DispatchFormulas] = []
    table = reader.mapping("dispatch")
    if table is not None:
        formula_keys = [k for k, _, _ in reader.items() if k not in RESERVED_KEYS]
        if formula_keys:
            sink.error(
                reader.key_span(formula_keys[0]),
                f"formula for '{formula_keys[0]}' outside 'dispatch:' in an entry that has one",
                "put every formula under a dispatch key such as 'Default:'",
            )
        for key_node, group_node in table.value:
            group = _read_group(reader, key_node, group_node, schema)
            if group is not None:
                groups.append(group)
    elif "dispatch" not in reader:
        items = [
            (reader.span(k), k, v) for name, k, v in reader.items() if name not in RESERVED_KEYS
        ]
        backward, forward = _read_formulas(reader, items, schema)
        groups.append(DispatchFormulas(DEFAULT_KEY, backward, forward, span=entry_span))
    if schema is None:
        return None
    return DerivativeEntry(
        schema=schema,
        dispatch=tuple(groups),
        output_differentiability=differentiability,
        output_differentiability_conditions=conditions,
        span=entry_span,
        field_spans=reader.field_spans(),
    )


def _read_schema(
    reader: EntryReader,
    parser: SchemaParser,
    functions: Mapping[OperatorName, NativeFunction] | None,
    failed: FailedEntries | None,
) -> FunctionSchema | None:
    node = reader.node_of("name")
    if node is None:
        reader.sink.error(
            reader.entry_span,
            "derivative entry has no 'name'",
            "give the operator's schema, e.g. 'name: foo(Tensor self) -> Tensor'",
        )
        return None
    text = reader.string("name", "a schema string")
    if text is None or not isinstance(node, ScalarNode):
        return None
    line, column = text_start(node)
    try:
        schema = parser.parse(text, file=reader.file, line=line, column=column)
    except SchemacError as error:
        reader.sink.extend(error.diagnostics)
        return None
    if (
        functions is not None
        and not _names_an_operator(schema, functions)
        and not (failed is not None and failed.is_failed(schema.name))
    ):
        reader.sink.error(
            schema.span,
            f"no operator '{schema}' in native_functions.yaml",
            _missing_operator_hint(schema, functions),
        )
        return None
    return schema


def _names_an_operator(
    schema: FunctionSchema, functions: Mapping[OperatorName, NativeFunction]
) -> bool:
    """Whether ``schema`` is an operator's of ``functions``, or one an ``autogen:`` promises."""
    return _known(schema, functions) or _autogenerated(schema, functions)


def _known(schema: FunctionSchema, functions: Mapping[OperatorName, NativeFunction]) -> bool:
    function = functions.get(schema.name)
    if function is None:
        return False
    # Equal schemas print the same, so the texts decide alone; both schemas
    # were parsed, so both texts are usually remembered, not printed (Note
    # [Schemas that print as written] in schemac.ir.schema), and comparing
    # them is cheaper than comparing the IR.
    return str(function.func) == str(schema)


def _autogenerated(
    schema: FunctionSchema, functions: Mapping[OperatorName, NativeFunction]
) -> bool:
    """Whether an entry's ``autogen:`` promises this operator.

    Its schema is synthesised by a pass, so only the name can be checked here.
    """
    return any(schema.name in f.autogen for f in functions.values() if f.autogen)


def _missing_operator_hint(
    schema: FunctionSchema, functions: Mapping[OperatorName, NativeFunction]
) -> str | None:
    same_name = [str(f.func) for f in functions.values() if f.name == schema.name]
    if same_name:
        return f"native_functions.yaml has '{same_name[0]}'"
    names = {str(f.name) for f in functions.values()}
    return did_you_mean(str(schema.name), names)


def _read_output_differentiability(
    reader: EntryReader,
) -> tuple[tuple[bool, ...] | None, tuple[str, ...] | None]:
    node = reader.node_of("output_differentiability")
    if node is None:
        return None, None
    expected = "a list of True/False (or one C++ condition string)"
    if not isinstance(node, SequenceNode) or not node.value:
        reader.wrong_type(node, expected)
        return None, None
    values = [scalar_value(item) if isinstance(item, ScalarNode) else item for item in node.value]
    if all(isinstance(value, bool) for value in values):
        return tuple(bool(v) for v in values), None
    if len(values) == 1 and isinstance(values[0], str):
        return None, (values[0],)
    reader.wrong_type(node, expected, "a condition is only supported for a single output")
    return None, None


def _read_group(
    reader: EntryReader, key_node: Node, group_node: Node, schema: FunctionSchema | None
) -> DispatchFormulas | None:
    key = reader.string_of(key_node, "an autograd dispatch key")
    if key is None:
        return None
    if key != DEFAULT_KEY and key not in AUTOGRAD_KEYS:
        reader.sink.error(
            reader.span(key_node),
            f"unknown autograd dispatch key '{key}'",
            did_you_mean(key, (DEFAULT_KEY, *AUTOGRAD_KEYS))
            or "use 'Default' or 'AutogradNestedTensor'",
        )
        return None
    if not isinstance(group_node, MappingNode):
        reader.wrong_type(group_node, f"a mapping of formulas under '{key}'")
        return None
    group_reader = EntryReader(reader.file, group_node, reader.sink, None, f"'{key}' formula table")
    items = [(reader.span(k), k, v) for _, k, v in group_reader.items()]
    backward, forward = _read_formulas(reader, items, schema)
    return DispatchFormulas(key, backward, forward, span=reader.span(key_node))


def _read_formulas(
    reader: EntryReader, items: list[tuple[Span, Node, Node]], schema: FunctionSchema | None
) -> tuple[tuple[Formula, ...], tuple[Formula, ...]]:
    backward: list[Formula] = []
    forward: list[Formula] = []
    argument_names = {a.name for a in schema.arguments.flat_all} if schema else set()
    output_names = _output_names(schema) if schema else set()
    for span, key_node, value_node in items:
        assert isinstance(key_node, ScalarNode)
        # reader.string_of, with the message built only when it is needed.
        text = string_value(value_node)
        if text is None:
            reader.wrong_type(value_node, f"a formula for '{key_node.value}'")
            continue
        pieces = split_pieces(key_node.value)
        names = tuple(name for name, _ in pieces)
        is_backward = names[0] in argument_names
        if schema is not None:
            allowed = argument_names if is_backward else output_names
            for name, offset in pieces:
                if name not in allowed:
                    _unknown_variable(
                        reader, key_node, name, offset, schema, argument_names | output_names
                    )
        formula = Formula(names, text, span=span, text_span=reader.span(value_node))
        (backward if is_backward else forward).append(formula)
    return tuple(backward), tuple(forward)


def _output_names(schema: FunctionSchema) -> set[str]:
    names = {"result"} | {f"result{i}" for i in range(len(schema.returns))}
    return names | {r.name for r in schema.returns if r.name is not None}


def _unknown_variable(
    reader: EntryReader,
    key_node: ScalarNode,
    name: str,
    offset: int,
    schema: FunctionSchema,
    known: set[str],
) -> None:
    span = piece_span(reader, key_node, offset, max(len(name), 1))
    if not name:
        reader.sink.error(span, "empty variable name in formula key", "separate names with ', '")
        return
    if _RESULT_NAME.fullmatch(name):
        count = len(schema.returns)
        outputs = f"{count} output{'s' if count != 1 else ''}"
        message = f"'{schema.name}' has {outputs}; there is no '{name}'"
    else:
        message = f"'{schema.name}' has no argument or output named '{name}'"
    inputs = ", ".join(a.name for a in schema.arguments.flat_all) or "none"
    reader.sink.error(span, message, did_you_mean(name, known) or f"its arguments are: {inputs}")
