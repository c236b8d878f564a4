"""An operator-selection file -> :class:`~schemac.ir.selection.OperatorSelection`.

Three spellings are accepted, all the ones PyTorch's build reads:

- the selective-build YAML (a mapping with ``operators:``,
  ``kernel_metadata:``, ... as PyTorch's model tracer writes it);
- a YAML list of operator names;
- a text file with one operator name per line (``#`` starts a comment).

``.yaml``/``.yml`` files are YAML, ``.txt`` files text; any other file is
YAML if it reads as a YAML mapping or list, text otherwise.

A plain list is PyTorch's legacy allow-list: each name is selected with all
its overloads, as a root operator, not for training, and non-operator
selectives (dtype lists) are all kept.

Mistakes are reported with their position, all at once: wrong value types,
unknown keys (with a did-you-mean), malformed operator names and operators
written twice.  Names the module does not define are not errors: a model's
selection may name operators of other libraries.
"""

from __future__ import annotations

import re
from pathlib import Path

from schemac.diagnostics import DiagnosticSink, InputError, Span
from schemac.frontend.entry_reader import EntryReader
from schemac.frontend.input_files import InputFileError, read_input_text
from schemac.frontend.yaml_nodes import (
    MappingNode,
    Node,
    ScalarNode,
    SequenceNode,
    parse_yaml_text,
    scalar_value,
    span_of,
)
from schemac.ir.selection import OperatorSelection, SelectedOperator

TOP_LEVEL_KEYS = (
    "include_all_operators",
    "include_all_non_op_selectives",
    "debug_info",
    "operators",
    "kernel_metadata",
    "et_kernel_metadata",
    "custom_classes",
    "build_features",
)
OPERATOR_KEYS = (
    "name",
    "is_root_operator",
    "is_used_for_training",
    "include_all_overloads",
    "debug_info",
)

#: ``ns::name`` or ``ns::name.overload``.
OPERATOR_NAME = re.compile(r"[A-Za-z_]\w*::[A-Za-z_]\w*(\.[A-Za-z_]\w*)?")

_YAML_SUFFIXES = (".yaml", ".yml")


def load_selection(path: str | Path, display_name: str | None = None) -> OperatorSelection:
    """Read a selection file; raise InputError listing every problem."""
    file = display_name or str(path)
    try:
        text = read_input_text(path, file, what="selection file")
    except InputFileError as error:  # missing, a directory, a FIFO, not UTF-8
        raise InputError([error.diagnostic]) from None
    suffix = Path(path).suffix
    yaml = True if suffix in _YAML_SUFFIXES else False if suffix == ".txt" else None
    return parse_selection(text, file, yaml=yaml)


def parse_selection(text: str, file: str, *, yaml: bool | None = True) -> OperatorSelection:
    """``yaml``: True for YAML, False for a text list, None to tell by the content."""
    sink = DiagnosticSink()
    if yaml is None:
        yaml = _looks_like_yaml(text, file)
    if not yaml:
        selection = _from_names(_text_names(text, file, sink), file)
        sink.raise_if_any(InputError)
        return selection
    doc, problems = parse_yaml_text(text, file)
    sink.extend(problems)
    sink.raise_if_any(InputError)
    root = doc.root if doc is not None else None
    if root is None:
        selection = OperatorSelection(source=file)
    elif isinstance(root, SequenceNode):
        selection = _from_names(_yaml_names(root, file, sink), file)
    elif isinstance(root, MappingNode):
        selection = _from_mapping(root, file, sink)
    else:
        sink.error(
            span_of(file, root),
            "a selection file must be a mapping (selective-build YAML) or a list of names",
            "e.g. 'operators: {aten::add.Tensor: {}}' or '- aten::add'",
        )
        selection = OperatorSelection(source=file)
    sink.raise_if_any(InputError)
    return selection


def _looks_like_yaml(text: str, file: str) -> bool:
    # A name list reads as one YAML scalar (or does not parse); a selection
    # file or a YAML list reads as a mapping or a sequence.
    doc, problems = parse_yaml_text(text, file)
    return not problems and doc is not None and isinstance(doc.root, (MappingNode, SequenceNode))


def _check_name(name: str, span: Span, sink: DiagnosticSink) -> bool:
    if OPERATOR_NAME.fullmatch(name):
        return True
    hint = "write 'namespace::name' or 'namespace::name.overload', e.g. 'aten::add.Tensor'"
    if "::" not in name and re.fullmatch(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)?", name):
        hint = f"did you mean 'aten::{name}'?"
    sink.error(span, f"malformed operator name '{name}'", hint)
    return False


def _text_names(text: str, file: str, sink: DiagnosticSink) -> list[tuple[str, Span]]:
    names: list[tuple[str, Span]] = []
    for number, line in enumerate(text.splitlines(), start=1):
        content = line.split("#", 1)[0]
        name = content.strip()
        if not name:
            continue
        column = content.index(name) + 1
        span = Span(file, number, column, number, column + len(name))
        if _check_name(name, span, sink):
            names.append((name, span))
    return names


def _yaml_names(root: SequenceNode, file: str, sink: DiagnosticSink) -> list[tuple[str, Span]]:
    names: list[tuple[str, Span]] = []
    for item in root.value:
        span = span_of(file, item)
        value = scalar_value(item) if isinstance(item, ScalarNode) else None
        if not isinstance(value, str):
            sink.error(span, "expected an operator name (a string) in the list")
            continue
        if _check_name(value, span, sink):
            names.append((value, span))
    return names


def _from_names(names: list[tuple[str, Span]], file: str) -> OperatorSelection:
    seen: dict[str, SelectedOperator] = {}
    for name, span in names:
        seen.setdefault(name, SelectedOperator(name, is_used_for_training=False, span=span))
    return OperatorSelection(
        include_all_non_op_selectives=True, operators=tuple(seen.values()), source=file
    )


def _from_mapping(root: MappingNode, file: str, sink: DiagnosticSink) -> OperatorSelection:
    reader = EntryReader(file, root, sink, TOP_LEVEL_KEYS, "selection file")
    return OperatorSelection(
        include_all_operators=reader.boolean("include_all_operators", False),
        include_all_non_op_selectives=reader.boolean("include_all_non_op_selectives", False),
        operators=_operators(reader, file, sink),
        kernel_metadata=_string_lists(reader, "kernel_metadata", sink),
        et_kernel_metadata=_string_lists(reader, "et_kernel_metadata", sink),
        custom_classes=frozenset(_strings(reader, "custom_classes")),
        build_features=frozenset(_strings(reader, "build_features")),
        debug_info=_debug_info(reader, "debug_info"),
        source=file,
    )


def _null(node: Node | None) -> bool:
    return isinstance(node, ScalarNode) and scalar_value(node) is None


def _operators(
    reader: EntryReader, file: str, sink: DiagnosticSink
) -> tuple[SelectedOperator, ...]:
    if _null(reader.node_of("operators")):
        return ()
    table = reader.mapping("operators")
    if table is None:
        return ()
    operators: dict[str, SelectedOperator] = {}
    for key_node, value_node in table.value:
        name = reader.string_of(key_node, "an operator name")
        if name is None:
            continue
        span = span_of(file, key_node)
        if not _check_name(name, span, sink):
            continue
        if name in operators:
            sink.error(
                span,
                f"operator '{name}' is listed twice",
                f"the first is on line {operators[name].span.line}",
            )
            continue
        if _null(value_node):
            operators[name] = SelectedOperator(name, span=span)
            continue
        if not isinstance(value_node, MappingNode):
            reader.wrong_type(value_node, f"a mapping of flags for '{name}'")
            continue
        entry = EntryReader(file, value_node, sink, OPERATOR_KEYS, f"entry of '{name}'")
        written = entry.string("name", "the operator name")
        if written is not None and written != name:
            sink.error(
                entry.value_span("name"),
                f"'name: {written}' does not match the key '{name}'",
                "drop 'name:' or make it equal to the key",
            )
        operators[name] = SelectedOperator(
            name=name,
            is_root_operator=entry.boolean("is_root_operator", True),
            is_used_for_training=entry.boolean("is_used_for_training", True),
            include_all_overloads=entry.boolean("include_all_overloads", True),
            debug_info=_debug_info(entry, "debug_info"),
            span=span,
        )
    return tuple(operators.values())


def _debug_info(reader: EntryReader, key: str) -> tuple[str, ...] | None:
    node = reader.node_of(key)
    if node is None:
        return None
    if not isinstance(node, SequenceNode):
        reader.wrong_type(node, f"a list for '{key}'")
        return None
    # PyTorch keeps whatever the tracer wrote, as text.
    items: list[str] = []
    for item in node.value:
        if isinstance(item, ScalarNode):
            items.append(str(item.value))
        else:
            reader.wrong_type(item, f"a string in '{key}'")
    return tuple(items)


def _strings(reader: EntryReader, key: str) -> list[str]:
    if _null(reader.node_of(key)):
        return []
    return [text for text, _ in reader.string_list(key)]


def _string_lists(
    reader: EntryReader, key: str, sink: DiagnosticSink
) -> tuple[tuple[str, tuple[str, ...]], ...]:
    if _null(reader.node_of(key)):
        return ()
    table = reader.mapping(key)
    if table is None:
        return ()
    result: list[tuple[str, tuple[str, ...]]] = []
    for key_node, value_node in table.value:
        name = reader.string_of(key_node, f"a name in '{key}'")
        if name is None:
            continue
        if not isinstance(value_node, SequenceNode):
            reader.wrong_type(value_node, f"a list of strings for '{name}' in '{key}'")
            continue
        values: list[str] = []
        for item in value_node.value:
            if isinstance(item, ScalarNode) and scalar_value(item) is not None:
                values.append(str(item.value))
            else:
                reader.wrong_type(item, f"a string in '{name}'")
        result.append((name, tuple(values)))
    return tuple(result)
