"""Functions.h and Functions.cpp: the backward node classes and their bodies."""

from __future__ import annotations

from collections.abc import Iterator

import attrs

from schemac.backends.autograd.nodes import NodeView
from schemac.backends.autograd.policy import INTRUSIVE, NodePointers
from schemac.backends.output.files import GeneratedFile, Provenance
from schemac.backends.templating import Templates


@attrs.frozen
class FunctionsView:
    #: Emptied once both files are printed: Mako keeps the view in a reference
    #: cycle, and the node views are then freed at once (see kernel_texts.py).
    nodes: list[NodeView]
    #: How the release holds nodes (``unpack_list``'s ``saved_for``).
    pointers: NodePointers = INTRUSIVE


def functions_files(
    templates: Templates,
    nodes: tuple[NodeView, ...],
    sources: Provenance,
    directory: str,
    pointers: NodePointers = INTRUSIVE,
) -> Iterator[GeneratedFile]:
    view = FunctionsView(list(nodes), pointers)
    texts = [templates.render(f"{name}.mako", view, sources=sources) for name in _FILES]
    view.nodes.clear()
    for name, text in zip(_FILES, texts, strict=True):
        yield GeneratedFile(f"{directory}/{name}", text)


_FILES = ("Functions.h", "Functions.cpp")
