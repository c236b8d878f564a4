"""The vmap backend: one plumbing template per operator that fits a shape.

Each operator's plumbing is a fragment (Note [Fragment reuse] in
:mod:`schemac.backends.reuse`) of the function and its plumbing kind (which
the release policy decides from the function alone).
"""

from __future__ import annotations

from collections.abc import Iterable

import attrs

from schemac.backends.aten.run_state import aten_run_state
from schemac.backends.aten.signatures.table import ViewTable
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
    """``fragments``: where each operator's plumbing is printed (the target's)."""
    policy = default_policy() if policy is None else policy
    pieces = Fragments() if fragments is None else fragments
    functions: list[str] = []
    for f in module.functions:
        kind = plumbing_kind(f, policy)
        if kind is not None:
            functions.append(pieces.text(_render_plumbing, (f, kind), views))
    return PlumbingFileView(tuple(functions))


def _render_plumbing(views: ViewTable, inputs: tuple[NativeFunction, PlumbingKind]) -> str:
    f, kind = inputs
    return plumbing(f, kind, views).text()


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
