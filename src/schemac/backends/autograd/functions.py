"""Functions.h and Functions.cpp: the backward node classes and their bodies."""

from __future__ import annotations

from collections.abc import Iterator

import attrs

from schemac.backends.autograd.nodes import NodeView
from schemac.backends.output.files import GeneratedFile
from schemac.backends.templating import Templates


@attrs.frozen
class FunctionsView:
    nodes: tuple[NodeView, ...]


def functions_files(
    templates: Templates, nodes: tuple[NodeView, ...], sources: tuple[str, ...], directory: str
) -> Iterator[GeneratedFile]:
    view = FunctionsView(nodes)
    for name in ("Functions.h", "Functions.cpp"):
        text = templates.render(f"{name}.mako", view, sources=sources)
        yield GeneratedFile(f"{directory}/{name}", text)
