"""The ``declarations`` backend: ``ATen/Declarations.yaml`` (docs/declarations.md)."""

from __future__ import annotations

from collections.abc import Iterator

import attrs

from schemac.backends.aten.run_state import aten_run_state
from schemac.backends.aten.signatures.table import ViewTable
from schemac.backends.declarations.records import RecordMemo, declaration
from schemac.backends.declarations.yaml_text import document
from schemac.backends.output.files import GeneratedFile, generated_banner
from schemac.backends.registry import EmitOptions
from schemac.backends.templating import module_sources
from schemac.ir.module import Module

OUTPUT = "ATen/Declarations.yaml"


def declarations_text(module: Module, views: ViewTable | None = None) -> str:
    """Every function of ``module``, in module order, as one YAML document.

    ``views``: the run's signature views, when other ATen targets share them.
    """
    table = ViewTable() if views is None else views
    memo: RecordMemo = {}
    records = (
        declaration(fn, table.cpp_group(fn), module.resolution(fn.func.name), memo)
        for fn in module.functions
    )
    banner = generated_banner("Declarations.yaml", module_sources(module), comment="#")
    return f"{banner}\n{document(records)}"


@attrs.frozen
class DeclarationsBackend:
    name: str = "declarations"
    description: str = "Declarations.yaml: every operator's C++ API as data, for binding generators"
    targets: tuple[str, ...] = ("declarations",)

    def emit(self, module: Module, options: EmitOptions) -> Iterator[GeneratedFile]:
        yield GeneratedFile(
            OUTPUT, declarations_text(module, aten_run_state(module, options).views)
        )


BACKEND = DeclarationsBackend()
