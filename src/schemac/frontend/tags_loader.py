"""tags.yaml -> :class:`~schemac.ir.tags.TagDefinition` entries.

The tag file is the vocabulary of ``tags:`` in native_functions.yaml; it is
loaded first so that an unknown tag can be reported with a did-you-mean.
"""

from __future__ import annotations

from schemac.diagnostics import DiagnosticSink
from schemac.frontend.entry_reader import EntryReader, top_level_entries
from schemac.frontend.yaml_nodes import YamlDocument
from schemac.ir.tags import TagDefinition

TAG_KEYS = ("tag", "desc")


def load_tags(doc: YamlDocument, sink: DiagnosticSink) -> tuple[TagDefinition, ...]:
    tags: list[TagDefinition] = []
    first_line: dict[str, int] = {}
    example = "an entry looks like '- tag: name' followed by '  desc: text'"
    for node in top_level_entries(doc, sink, "tag definitions", example):
        reader = EntryReader(doc.file, node, sink, TAG_KEYS, "tag definition")
        if "tag" not in reader:
            sink.error(reader.entry_span, "tag definition has no 'tag'", example)
            continue
        name = reader.string("tag", "a tag name")
        description = reader.string("desc", "a description") or ""
        if "desc" not in reader:
            sink.error(
                reader.entry_span, "tag definition has no 'desc'", "describe what the tag means"
            )
        if name is None:
            continue
        if not name.isidentifier():
            sink.error(reader.value_span("tag"), f"tag name '{name}' is not an identifier")
            continue
        if name in first_line:
            sink.error(
                reader.value_span("tag"),
                f"tag '{name}' is defined twice",
                f"the first definition is on line {first_line[name]}",
            )
            continue
        first_line[name] = reader.value_span("tag").line
        tags.append(TagDefinition(name, description, span=reader.value_span("tag")))
    return tuple(tags)
