"""native_functions.yaml -> :class:`~schemac.ir.native.NativeFunction` entries.

Each ``- func:`` item is read key by key with :class:`EntryReader`, so that a
wrong value is reported at its own position and the rest of the entry (and the
rest of the file) is still checked.  The schema string is handed to the schema
parser with the position where it stands in the file, so schema diagnostics
point into the YAML.

Only rules that concern one entry on its own are checked here (a value's
type, a known tag, a known dispatch key, a key combination that makes no sense
such as ``precomputed`` without ``structured``).  Rules that relate entries to
each other, other than duplicate names, are for the passes.
"""

from __future__ import annotations

from collections.abc import Callable
from collections.abc import Set as AbstractSet

import attrs

from schemac.diagnostics import DiagnosticSink, SchemacError, did_you_mean
from schemac.frontend.entry_reader import EntryReader, text_start, top_level_entries
from schemac.frontend.failed_entries import FailedEntries
from schemac.frontend.field_values import (
    read_category_override,
    read_python_module,
    read_structured_inherits,
)
from schemac.frontend.native_fields import (
    piece_span,
    read_autogen,
    read_dispatch,
    read_operator_name,
    read_precomputed,
    read_ufunc_inner_loop,
    split_pieces,
)
from schemac.frontend.part_memo import (
    PartMemo,
    load_parts,
    part_key,
    pickled_part,
    unpickled_part,
)
from schemac.frontend.schema_parser import SchemaParser
from schemac.frontend.source_keys import entries_keyable, entry_blind_keys, entry_source_key
from schemac.frontend.yaml_nodes import MappingNode, ScalarNode, YamlDocument
from schemac.frontend.yaml_parts import YamlParts
from schemac.ir.native import DeviceCheck, NativeFunction, Variant, set_loaded_key
from schemac.ir.schema import FunctionSchema, schema_text_blind_to_defaults

NATIVE_KEYS = (
    "func",
    "variants",
    "dispatch",
    "structured",
    "structured_delegate",
    "structured_inherits",
    "precomputed",
    "device_guard",
    "device_check",
    "manual_kernel_registration",
    "manual_cpp_binding",
    "python_module",
    "category_override",
    "autogen",
    "tags",
    "ufunc_inner_loop",
    "cpp_no_default_args",
    "use_const_ref_for_mutable_tensors",
)

#: For look-ups: every key of every entry is checked against the known ones.
_NATIVE_KEY_SET = frozenset(NATIVE_KEYS)

DEFAULT_NAMESPACE = "aten"


def load_native_functions(
    doc: YamlDocument | YamlParts,
    parser: SchemaParser,
    valid_tags: AbstractSet[str] | None,
    sink: DiagnosticSink,
    failed: FailedEntries | None = None,
    memo: PartMemo | None = None,
) -> tuple[NativeFunction, ...]:
    """Every entry that loaded; ``failed`` learns the names of those that did not.

    An entry with an error in a field other than ``func`` is returned too
    (with that field's default): ``failed`` then learns of it from the
    error's position (:meth:`FailedEntries.add_functions_with_errors`).
    ``doc`` in parts raises :class:`~schemac.frontend.yaml_parts.PartFailed`
    when a part does not compose: the caller then loads the whole text.
    ``memo``: parts of ``doc`` loaded by an earlier run (Note [Loaded parts
    remembered] in :mod:`.part_memo`); only ``doc`` in parts uses it.
    """
    functions: list[NativeFunction] = []
    first_line: dict[str, int] = {}
    keyed = entries_keyable(doc.text)
    if isinstance(doc, YamlDocument):
        _load_part(doc, parser, valid_tags, sink, failed, keyed, functions, first_line)
        return tuple(functions)
    tags = None if valid_tags is None else frozenset(valid_tags)
    load_parts(
        doc.parts(),
        # Note [Loaded parts remembered]: the keys travel with the functions.
        memo if keyed else None,
        lambda part: part_key("native", part.file, part.lines_before, part.text, tags),
        unpickled_part,
        lambda function: _admit(function, sink, functions, first_line),
        # Note [Lists composed in parts]: a part's nodes go when its entries are loaded.
        lambda part: _load_part(
            part.composed(), parser, valid_tags, sink, failed, keyed, functions, first_line
        ),
        functions,
        pickled_part,
        sink,
    )
    return tuple(functions)


def _admit(
    function: NativeFunction,
    sink: DiagnosticSink,
    functions: list[NativeFunction],
    first_line: dict[str, int],
) -> None:
    """Add ``function`` unless an operator of its name was loaded before."""
    key = f"{function.namespace}::{function.name}"
    if key in first_line:
        sink.error(
            function.func.name_span,
            f"operator '{function.name}' is defined twice",
            f"the first definition is on line {first_line[key]}",
        )
        return
    first_line[key] = function.span.line
    functions.append(function)


def _load_part(
    doc: YamlDocument,
    parser: SchemaParser,
    valid_tags: AbstractSet[str] | None,
    sink: DiagnosticSink,
    failed: FailedEntries | None,
    keyed: bool,
    functions: list[NativeFunction],
    first_line: dict[str, int],
) -> None:
    """Load ``doc``'s entries into ``functions`` (``first_line``: where each
    operator loaded so far is defined)."""
    errors_before = len(sink.diagnostics)
    entries = top_level_entries(
        doc,
        sink,
        "native function entries",
        "an entry looks like '- func: name(Tensor self) -> Tensor'",
    )
    if failed is not None and len(sink.diagnostics) > errors_before:
        failed.unnamed = True  # an item that is not a mapping
    for node in entries:
        function = _load_entry(doc.file, node, parser, valid_tags, sink)
        if function is None:
            if failed is not None:
                failed.add_schema_text(_schema_text(node))
            continue
        if keyed:
            set_loaded_key(
                function,
                entry_source_key(doc, node),
                entry_blind_keys(doc, node, schema_text_blind_to_defaults(function.func)),
            )
        _admit(function, sink, functions, first_line)


def _schema_text(node: MappingNode) -> str | None:
    """The ``func:`` text of an entry, if it is a string."""
    for key, value in node.value:
        if isinstance(key, ScalarNode) and key.value == "func":
            return value.value if isinstance(value, ScalarNode) else None
    return None


#: How each key's value is read; a key the entry does not have keeps the
#: NativeFunction default.  (Only present keys are read: most entries have
#: three or four of the eighteen.)
_FieldReader = Callable[[EntryReader, SchemaParser, "AbstractSet[str] | None"], object]
_FIELD_READERS: dict[str, _FieldReader] = {
    "variants": lambda r, p, t: _read_variants(r),
    "dispatch": lambda r, p, t: read_dispatch(r),
    "structured": lambda r, p, t: r.boolean("structured", False),
    "structured_delegate": lambda r, p, t: read_operator_name(r, p, "structured_delegate"),
    "structured_inherits": lambda r, p, t: read_structured_inherits(r),
    "precomputed": lambda r, p, t: read_precomputed(r, p),
    "device_guard": lambda r, p, t: r.boolean("device_guard", True),
    "device_check": lambda r, p, t: _read_device_check(r),
    "manual_kernel_registration": lambda r, p, t: r.boolean("manual_kernel_registration", False),
    "manual_cpp_binding": lambda r, p, t: r.boolean("manual_cpp_binding", False),
    "python_module": lambda r, p, t: read_python_module(r),
    "category_override": lambda r, p, t: read_category_override(r),
    "autogen": lambda r, p, t: read_autogen(r, p),
    "tags": lambda r, p, t: _read_tags(r, t),
    "ufunc_inner_loop": lambda r, p, t: read_ufunc_inner_loop(r),
    "cpp_no_default_args": lambda r, p, t: frozenset(
        text for text, _ in r.string_list("cpp_no_default_args")
    ),
    "use_const_ref_for_mutable_tensors": lambda r, p, t: r.boolean(
        "use_const_ref_for_mutable_tensors", False
    ),
}


def _load_entry(
    file: str,
    node: MappingNode,
    parser: SchemaParser,
    valid_tags: AbstractSet[str] | None,
    sink: DiagnosticSink,
) -> NativeFunction | None:
    reader = EntryReader(file, node, sink, _NATIVE_KEY_SET, "native function entry")
    schema = _read_schema(reader, parser)
    fields = {
        key: _FIELD_READERS[key](reader, parser, valid_tags) for key in reader if key != "func"
    }
    _check_combinations(reader, fields, schema)
    if schema is None:
        return None
    namespace = schema.name.name.namespace or DEFAULT_NAMESPACE
    if schema.name.name.namespace is not None:
        # The namespace is a property of the entry; the schema is the
        # unqualified one the dispatcher registers inside that namespace.
        name = attrs.evolve(schema.name, name=attrs.evolve(schema.name.name, namespace=None))
        schema = attrs.evolve(schema, name=name)
    return NativeFunction(
        func=schema,
        namespace=namespace,
        span=reader.entry_span,
        field_spans=reader.field_spans(),
        **fields,  # type: ignore[arg-type]
    )


def _check_combinations(
    reader: EntryReader, fields: dict[str, object], schema: FunctionSchema | None
) -> None:
    """Keys that make no sense together in one entry."""
    sink = reader.sink
    structured = fields.get("structured", False)
    if fields.get("precomputed") is not None and not structured:
        sink.error(reader.key_span("precomputed"), "'precomputed' requires 'structured: True'")
    if fields.get("ufunc_inner_loop") and not structured:
        sink.error(
            reader.key_span("ufunc_inner_loop"), "'ufunc_inner_loop' requires 'structured: True'"
        )
    if fields.get("dispatch") is not None and fields.get("manual_kernel_registration"):
        sink.error(
            reader.key_span("dispatch"),
            "'dispatch' has no effect with 'manual_kernel_registration: True'",
            "remove one of the two",
        )
    variants = fields.get("variants", frozenset())
    if fields.get("python_module") is not None and Variant.method in variants:  # type: ignore[operator]
        sink.error(
            reader.key_span("python_module"),
            "functions in a python_module cannot be methods",
            "remove 'method' from 'variants'",
        )
    if fields.get("use_const_ref_for_mutable_tensors") and schema and schema.arguments.out:
        sink.error(
            reader.key_span("use_const_ref_for_mutable_tensors"),
            "'use_const_ref_for_mutable_tensors' is not supported on out= operators",
        )


def _read_schema(reader: EntryReader, parser: SchemaParser) -> FunctionSchema | None:
    node = reader.node_of("func")
    if node is None:
        reader.sink.error(
            reader.entry_span,
            "native function entry has no 'func'",
            "every entry starts with 'func: name(Type arg, ...) -> Return'",
        )
        return None
    text = reader.string("func", "a schema string")
    if text is None:
        return None
    assert isinstance(node, ScalarNode)
    line, column = text_start(node)
    try:
        return parser.parse(text, file=reader.file, line=line, column=column)
    except SchemacError as error:
        reader.sink.extend(error.diagnostics)
        return None


#: The spellings nearly every entry uses, read without splitting.
_USUAL_VARIANTS = {
    "function": frozenset({Variant.function}),
    "method": frozenset({Variant.method}),
    "function, method": frozenset({Variant.function, Variant.method}),
    "method, function": frozenset({Variant.function, Variant.method}),
}

_VARIANT_HINT = "write 'function', 'method' or 'function, method'"


def _read_variants(reader: EntryReader) -> frozenset[Variant]:
    node = reader.node_of("variants")
    if node is None:
        return frozenset({Variant.function})
    text = reader.string("variants", "a string such as 'function, method'")
    if text is None:
        return frozenset({Variant.function})
    common = _USUAL_VARIANTS.get(text)
    if common is not None:
        return common
    variants: set[Variant] = set()
    assert isinstance(node, ScalarNode)
    for name, offset in split_pieces(text):
        if name in Variant.__members__:
            variants.add(Variant[name])
        else:
            hint = did_you_mean(name, Variant.__members__) or _VARIANT_HINT
            shown = f"'{name}'" if name else "an empty name"
            span = piece_span(reader, node, offset, len(name))
            reader.sink.error(span, f"unknown variant {shown}", hint)
    return frozenset(variants) if variants else frozenset({Variant.function})


def _read_device_check(reader: EntryReader) -> DeviceCheck:
    text = reader.string("device_check", "'ExactSame' or 'NoCheck'")
    if text is None:
        return DeviceCheck.ExactSame
    if text not in DeviceCheck.__members__:
        reader.sink.error(
            reader.value_span("device_check"),
            f"unknown device_check '{text}'",
            did_you_mean(text, DeviceCheck.__members__) or "write 'ExactSame' or 'NoCheck'",
        )
        return DeviceCheck.ExactSame
    return DeviceCheck[text]


def _read_tags(reader: EntryReader, valid_tags: AbstractSet[str] | None) -> tuple[str, ...]:
    tags: list[str] = []
    for tag, node in reader.string_list("tags", allow_single=True):
        if valid_tags is not None and tag not in valid_tags:
            reader.sink.error(
                reader.span(node),
                f"unknown tag '{tag}'",
                did_you_mean(tag, valid_tags) or "tags must be defined in tags.yaml",
            )
            continue
        if tag not in tags:
            tags.append(tag)
    return tuple(tags)
