"""The ``autograd`` target's entry in the backend registry.

Writes ``autograd/`` (the files PyTorch's build puts in
torch/csrc/autograd/generated/): see docs/autograd.md for the families and for
the include layout.
"""

from __future__ import annotations

import gc
from collections.abc import Iterable, Iterator

import attrs

from schemac.backends.autograd.factories import factories_files
from schemac.backends.autograd.functions import functions_files
from schemac.backends.autograd.inplace_or_view import inplace_or_view_files
from schemac.backends.autograd.nodes import node_views
from schemac.backends.autograd.operators import operator_plans
from schemac.backends.autograd.trace_type import trace_files
from schemac.backends.autograd.variable_type import variable_type_files
from schemac.backends.autograd.view_funcs import view_funcs_files
from schemac.backends.output.files import GeneratedFile
from schemac.backends.registry import EmitOptions
from schemac.backends.templating import Templates, module_sources
from schemac.ir.module import Module

#: Where the files go inside OUT.
OUTPUT_DIR = "autograd"
TEMPLATES_PACKAGE = "schemac.backends.autograd"


def emit_autograd(module: Module) -> Iterator[GeneratedFile]:
    templates = Templates(TEMPLATES_PACKAGE)
    sources = module_sources(module, derivatives=True)
    yield from functions_files(templates, node_views(module), sources, OUTPUT_DIR)
    plans = operator_plans(module)
    yield from variable_type_files(templates, plans, sources, OUTPUT_DIR)
    yield from inplace_or_view_files(templates, plans, sources, OUTPUT_DIR)
    yield from view_funcs_files(templates, plans, sources, OUTPUT_DIR)
    yield from trace_files(templates, plans, sources, OUTPUT_DIR)
    yield from factories_files(templates, module, sources, OUTPUT_DIR)


@attrs.frozen
class AutogradBackend:
    name: str = "autograd"
    description: str = "autograd C++: backward nodes, VariableType, ADInplaceOrView, TraceType"
    targets: tuple[str, ...] = ("autograd",)

    def emit(self, module: Module, options: EmitOptions) -> Iterable[GeneratedFile]:
        # Emission builds many small acyclic objects (views, strings): the
        # cyclic collector finds nothing to free and costs about a fifth of
        # the time, so it is paused, and restored as it was.
        was_enabled = gc.isenabled()
        gc.disable()
        try:
            return list(emit_autograd(module))
        finally:
            if was_enabled:
                gc.enable()


BACKEND = AutogradBackend()
