"""Functions.h and Functions.cpp: the backward node classes and their bodies.

Each node is printed once, both its declaration and its definitions, by a
partial template (``_functions_nodes.mako``), in buckets of fragments (Note
[Autograd pieces] in kernel_texts.py): a node's piece is its info and the
conventions of its function, so after an edit only the nodes whose info
changed are made again.  The two files paste the texts.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

import attrs

from schemac.backends.aten.signatures.conventions import Conventions
from schemac.backends.autograd.nodes import (
    AutogradLoweringError,
    NodeView,
    checked_node_view,
    differentiable_infos,
    node_conventions,
    node_views,
)
from schemac.backends.autograd.policy import INTRUSIVE, AutogradPolicy, NodePointers
from schemac.backends.buckets import SEPARATOR, bucketed_texts
from schemac.backends.output.files import GeneratedFile, Provenance
from schemac.backends.reuse import Fragments
from schemac.backends.templating import Templates
from schemac.ir.autograd import DifferentiabilityInfo
from schemac.ir.module import Module

#: Ends a node's Functions.h text, before its Functions.cpp text, in a piece.
#: Neither file contains the character; the split checks it.
PART = "\x1e"


@attrs.frozen
class FunctionsView:
    """What Functions.h and Functions.cpp are rendered with."""

    #: Each node's struct (Functions.h) and definitions (Functions.cpp).
    declarations: tuple[str, ...]
    definitions: tuple[str, ...]
    #: How the release holds nodes (``unpack_list``'s ``saved_for``).
    pointers: NodePointers = INTRUSIVE


@attrs.frozen
class NodeBatch:
    """What the nodes partial (``_functions_nodes.mako``) is rendered with."""

    #: Emptied once printed (see kernel_texts.py).
    nodes: list[NodeView]
    part: str = PART
    separator: str = SEPARATOR


@attrs.frozen
class _NodeContext:
    """What a bucket of nodes is printed with, fixed by the run (the release's)."""

    templates: Templates
    view_functions: Mapping[str, str]
    pointers: NodePointers


#: What one node is made from: its info and its function's conventions.
_Piece = tuple[DifferentiabilityInfo, Conventions]


def _render_nodes(context: _NodeContext, inputs: tuple[str, tuple[_Piece, ...]]) -> str:
    """A bucket of nodes (Note [Autograd pieces]); raises on a formula that
    cannot be lowered (the caller reports every such formula at once)."""
    views = [
        checked_node_view(info, conv, context.view_functions, context.pointers)
        for info, conv in inputs[1]
    ]
    batch = NodeBatch(views)
    output = context.templates.render("_functions_nodes.mako", batch)
    batch.nodes.clear()
    return output


def functions_files(
    templates: Templates,
    module: Module,
    policy: AutogradPolicy,
    sources: Provenance,
    directory: str,
    fragments: Fragments | None = None,
) -> Iterator[GeneratedFile]:
    """``fragments``: where the nodes are printed (Note [Autograd pieces])."""
    pieces = node_pieces(module)
    try:
        texts = bucketed_texts(
            Fragments() if fragments is None else fragments,
            _render_nodes,
            "autograd-nodes",
            pieces,
            [info.node or "" for info, _ in pieces],
            _NodeContext(templates, policy.view_functions, policy.pointers),
        )
    except AutogradLoweringError:
        # A bucket holds a formula that cannot be lowered: every node is made
        # again, so that all such formulas are reported together, in order.
        node_views(module, policy)
        raise
    declarations = []
    definitions = []
    for text in texts:
        declaration, part, definition = text.partition(PART)
        if not part or PART in definition:
            raise AssertionError(f"a node printed as {text.count(PART) + 1} parts, not 2")
        declarations.append(declaration)
        definitions.append(definition)
    del texts
    view = FunctionsView(tuple(declarations), tuple(definitions), policy.pointers)
    for name in _FILES:
        yield GeneratedFile(
            f"{directory}/{name}", templates.render(f"{name}.mako", view, sources=sources)
        )


def node_pieces(module: Module) -> list[_Piece]:
    """Every node's info and conventions, in the files' order (:func:`differentiable_infos`)."""
    return [(info, node_conventions(module, info)) for info in differentiable_infos(module)]


_FILES = ("Functions.h", "Functions.cpp")
