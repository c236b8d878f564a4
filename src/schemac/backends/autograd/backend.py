"""The ``autograd`` target's entry in the backend registry.

Writes ``autograd/`` (the files PyTorch's build puts in
torch/csrc/autograd/generated/): see docs/autograd.md for the families and for
the include layout.
"""

from __future__ import annotations

import gc
from collections.abc import Iterable

import attrs

from schemac.backends.autograd.factories import factories_files
from schemac.backends.autograd.functions import functions_files
from schemac.backends.autograd.inplace_or_view import inplace_or_view_files
from schemac.backends.autograd.nodes import node_views
from schemac.backends.autograd.operators import operator_plans
from schemac.backends.autograd.policy import AutogradPolicy
from schemac.backends.autograd.trace_type import NUM_SHARDS as TRACE_SHARDS
from schemac.backends.autograd.trace_type import trace_files
from schemac.backends.autograd.variable_type import NUM_SHARDS as VARIABLE_TYPE_SHARDS
from schemac.backends.autograd.variable_type import variable_type_files
from schemac.backends.autograd.view_funcs import view_funcs_files
from schemac.backends.output.files import GeneratedFile
from schemac.backends.registry import EmitOptions
from schemac.backends.templating import Templates, module_sources
from schemac.ir.module import Module
from schemac.profiles import ReleaseProfile, reference_profile

#: Where the files go inside OUT.
OUTPUT_DIR = "autograd"
TEMPLATES_PACKAGE = "schemac.backends.autograd"


def emit_autograd(module: Module, *, profile: ReleaseProfile | None = None) -> list[GeneratedFile]:
    """Every file of the target.

    ``profile``: the target release's (the reference release's by default).
    """
    templates = Templates(TEMPLATES_PACKAGE)
    sources = module_sources(module, derivatives=True)
    policy = AutogradPolicy.of(reference_profile() if profile is None else profile)
    plans = operator_plans(module, policy)
    views = node_views(module, policy)
    return [
        *functions_files(templates, views, sources, OUTPUT_DIR, policy.pointers),
        *variable_type_files(
            templates,
            plans,
            sources,
            OUTPUT_DIR,
            policy.shards("variable_type", VARIABLE_TYPE_SHARDS),
        ),
        *inplace_or_view_files(templates, plans, sources, OUTPUT_DIR),
        *view_funcs_files(templates, plans, sources, OUTPUT_DIR),
        *trace_files(
            templates, plans, sources, OUTPUT_DIR, policy.shards("trace_type", TRACE_SHARDS)
        ),
        *factories_files(templates, module, sources, OUTPUT_DIR),
    ]


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
            return emit_autograd(module, profile=options.profile)
        finally:
            if was_enabled:
                gc.enable()


BACKEND = AutogradBackend()
