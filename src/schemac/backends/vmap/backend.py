"""The vmap backend: one plumbing template per operator that fits a shape."""

from __future__ import annotations

from collections.abc import Iterable

import attrs

from schemac.backends.aten.run_state import aten_run_state
from schemac.backends.aten.signatures.table import ViewTable
from schemac.backends.output import GeneratedFile
from schemac.backends.registry import EmitOptions
from schemac.backends.release_policy import ReleasePolicy, default_policy
from schemac.backends.templating import native_sources
from schemac.backends.vmap.plumbing import plumbing, plumbing_kind
from schemac.ir.module import Module

PACKAGE = "schemac.backends.vmap"
HEADER = "ATen/VmapGeneratedPlumbing.h"


@attrs.frozen
class PlumbingFileView:
    functions: tuple[str, ...]


def plumbing_file_view(
    module: Module, views: ViewTable, policy: ReleasePolicy | None = None
) -> PlumbingFileView:
    policy = default_policy() if policy is None else policy
    functions: list[str] = []
    for f in module.functions:
        kind = plumbing_kind(f, policy)
        if kind is not None:
            functions.append(plumbing(f, kind, views).text())
    return PlumbingFileView(tuple(functions))


@attrs.frozen
class VmapBackend:
    name: str = "vmap-plumbing"
    description: str = "VmapGeneratedPlumbing.h: functorch's batch-rule plumbing"
    targets: tuple[str, ...] = ("vmap",)

    def emit(self, module: Module, options: EmitOptions) -> Iterable[GeneratedFile]:
        state = aten_run_state(module, options)
        text = state.templates(PACKAGE).render(
            "VmapGeneratedPlumbing.h.mako",
            plumbing_file_view(module, state.views, ReleasePolicy.of(options.profile)),
            sources=native_sources(module),
        )
        return (GeneratedFile(HEADER, text),)


BACKEND = VmapBackend()
