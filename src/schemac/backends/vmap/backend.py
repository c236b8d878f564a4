"""The vmap backend: one plumbing template per operator that fits a shape."""

from __future__ import annotations

from collections.abc import Iterable

import attrs

from schemac.backends.output import GeneratedFile
from schemac.backends.registry import EmitOptions
from schemac.backends.release_policy import DEFAULT_POLICY, ReleasePolicy
from schemac.backends.templating import Templates
from schemac.backends.vmap.plumbing import plumbing, plumbing_kind
from schemac.ir.module import Module

PACKAGE = "schemac.backends.vmap"
HEADER = "ATen/VmapGeneratedPlumbing.h"


@attrs.frozen
class PlumbingFileView:
    functions: tuple[str, ...]


def plumbing_file_view(module: Module, policy: ReleasePolicy = DEFAULT_POLICY) -> PlumbingFileView:
    functions: list[str] = []
    for f in module.functions:
        kind = plumbing_kind(f, policy)
        if kind is not None:
            functions.append(plumbing(f, kind).text())
    return PlumbingFileView(tuple(functions))


@attrs.frozen
class VmapBackend:
    name: str = "vmap-plumbing"
    description: str = "VmapGeneratedPlumbing.h: functorch's batch-rule plumbing"
    targets: tuple[str, ...] = ("vmap",)

    def emit(self, module: Module, options: EmitOptions) -> Iterable[GeneratedFile]:
        text = Templates(PACKAGE).render(
            "VmapGeneratedPlumbing.h.mako",
            plumbing_file_view(module),
            sources=(module.sources.native_functions,),
        )
        return (GeneratedFile(HEADER, text),)


BACKEND = VmapBackend()
