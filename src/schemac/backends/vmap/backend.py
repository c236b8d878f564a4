"""The vmap backend: one plumbing template per operator that fits a shape.

The plumbing is printed in buckets of fragments (Note [Fragment buckets] in
:mod:`schemac.backends.buckets`): an operator's text is a function of the
function and its shape (which the release policy picks from the function
alone), and ~19 us each is too little to pay for a fragment of its own.
"""

from __future__ import annotations

from collections.abc import Iterable

import attrs

from schemac.backends.aten.run_state import aten_run_state
from schemac.backends.aten.signatures.table import ViewTable
from schemac.backends.buckets import SEPARATOR, bucketed_texts
from schemac.backends.output import GeneratedFile
from schemac.backends.registry import EmitOptions
from schemac.backends.release_policy import ReleasePolicy, default_policy
from schemac.backends.reuse import Fragments
from schemac.backends.templating import native_sources
from schemac.backends.vmap.plumbing import PlumbingKind, plumbing, plumbing_kind
from schemac.ir.module import Module
from schemac.ir.native import NativeFunction

PACKAGE = "schemac.backends.vmap"
HEADER = "ATen/VmapGeneratedPlumbing.h"


@attrs.frozen
class PlumbingFileView:
    functions: tuple[str, ...]


def plumbing_file_view(
    module: Module,
    views: ViewTable,
    policy: ReleasePolicy | None = None,
    fragments: Fragments | None = None,
) -> PlumbingFileView:
    """``fragments``: where the plumbing is printed (the target's)."""
    policy = default_policy() if policy is None else policy
    pieces: list[tuple[NativeFunction, PlumbingKind]] = []
    for f in module.functions:
        kind = plumbing_kind(f, policy)
        if kind is not None:
            pieces.append((f, kind))
    texts = bucketed_texts(
        Fragments() if fragments is None else fragments,
        _render_bucket,
        "vmap-plumbing",
        pieces,
        [str(f.func.name) for f, _ in pieces],
        views,
    )
    return PlumbingFileView(tuple(texts))


def _render_bucket(
    views: ViewTable, inputs: tuple[str, tuple[tuple[NativeFunction, PlumbingKind], ...]]
) -> str:
    """A bucket of plumbing texts (Note [Fragment buckets])."""
    return "".join(plumbing(f, kind, views).text() + SEPARATOR for f, kind in inputs[1])


@attrs.frozen
class VmapBackend:
    name: str = "vmap-plumbing"
    description: str = "VmapGeneratedPlumbing.h: functorch's batch-rule plumbing"
    targets: tuple[str, ...] = ("vmap",)

    def emit(self, module: Module, options: EmitOptions) -> Iterable[GeneratedFile]:
        state = aten_run_state(module, options)
        text = state.templates(PACKAGE).render(
            "VmapGeneratedPlumbing.h.mako",
            plumbing_file_view(
                module, state.views, ReleasePolicy.of(options.profile), options.fragments
            ),
            sources=native_sources(module),
        )
        return (GeneratedFile(HEADER, text),)


BACKEND = VmapBackend()
