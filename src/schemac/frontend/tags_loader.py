"""tags.yaml -> :class:`~schemac.ir.tags.TagDefinition` entries.

The tag file is the vocabulary of ``tags:`` in native_functions.yaml; it is
loaded first so that an unknown tag can be reported with a did-you-mean.
"""

from __future__ import annotations

from schemac.diagnostics import DiagnosticSink, did_you_mean
from schemac.frontend.entry_reader import EntryReader, top_level_entries
from schemac.frontend.failed_entries import FailedEntries
from schemac.frontend.yaml_nodes import MappingNode, ScalarNode, YamlDocument
from schemac.ir.tags import TagDefinition

TAG_KEYS = ("tag", "desc")


def load_tags(
    doc: YamlDocument, sink: DiagnosticSink, failed: FailedEntries | None = None
) -> tuple[TagDefinition, ...]:
    """The tags defined; ``failed`` learns the names of definitions that failed.

    (A definition whose name cannot be read makes every tag possibly
    defined: ``failed.unnamed_tag``.)
    """
    tags: list[TagDefinition] = []
    first_line: dict[str, int] = {}
    example = "an entry looks like '- tag: name' followed by '  desc: text'"
    errors_before = len(sink.diagnostics)
    entries = top_level_entries(doc, sink, "tag definitions", example)
    if failed is not None and len(sink.diagnostics) > errors_before:
        failed.unnamed_tag = True  # an item that is not a mapping
    for node in entries:
        reader = EntryReader(doc.file, node, sink, TAG_KEYS, "tag definition")
        if "tag" not in reader:
            sink.error(reader.entry_span, "tag definition has no 'tag'", example)
            if failed is not None:
                failed.unnamed_tag = True
            continue
        name = reader.string("tag", "a tag name")
        description = reader.string("desc", "a description") or ""
        if "desc" not in reader and not _misspelt_desc(node):
            sink.error(
                reader.entry_span, "tag definition has no 'desc'", "describe what the tag means"
            )
        if name is None:
            if failed is not None:
                failed.unnamed_tag = True
            continue
        if not name.isidentifier():
            sink.error(reader.value_span("tag"), f"tag name '{name}' is not an identifier")
            if failed is not None:
                failed.tags.add(name)
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


def _misspelt_desc(node: MappingNode) -> bool:
    """Whether a key is close to ``desc``: reported as unknown already, with the spelling."""
    return any(
        isinstance(key, ScalarNode)
        and isinstance(key.value, str)
        and key.value != "tag"
        and did_you_mean(key.value, ("desc",)) is not None
        for key, _ in node.value
    )
