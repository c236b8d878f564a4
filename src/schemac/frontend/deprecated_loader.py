"""deprecated.yaml -> :class:`~schemac.ir.derivatives.DeprecatedSignature` entries.

Each entry is an old Python signature (``name:``, a schema) and the ATen call
it forwards to (``aten:``, an expression over the signature's argument names).
"""

from __future__ import annotations

from schemac.diagnostics import DiagnosticSink, SchemacError
from schemac.frontend.entry_reader import EntryReader, text_start, top_level_entries
from schemac.frontend.schema_parser import SchemaParser
from schemac.frontend.yaml_nodes import ScalarNode, YamlDocument
from schemac.ir.derivatives import DeprecatedSignature

DEPRECATED_KEYS = ("name", "aten")


def load_deprecated(
    doc: YamlDocument, parser: SchemaParser, sink: DiagnosticSink
) -> tuple[DeprecatedSignature, ...]:
    signatures: list[DeprecatedSignature] = []
    example = "an entry looks like '- name: foo(Tensor self) -> Tensor' and '  aten: foo(self)'"
    for node in top_level_entries(doc, sink, "deprecated signatures", example):
        reader = EntryReader(doc.file, node, sink, DEPRECATED_KEYS, "deprecated signature")
        for key in DEPRECATED_KEYS:
            if key not in reader:
                sink.error(reader.entry_span, f"deprecated signature has no '{key}'", example)
        aten = reader.string("aten", "an ATen call expression")
        text = reader.string("name", "a schema string")
        name_node = reader.node_of("name")
        if text is None or aten is None or not isinstance(name_node, ScalarNode):
            continue
        line, column = text_start(name_node)
        try:
            schema = parser.parse(text, file=doc.file, line=line, column=column)
        except SchemacError as error:
            sink.extend(error.diagnostics)
            continue
        signatures.append(DeprecatedSignature(schema, aten, span=reader.entry_span))
    return tuple(signatures)
