"""The ``autograd`` target's entry in the backend registry.

Writes ``autograd/`` (the files PyTorch's build puts in
torch/csrc/autograd/generated/): see docs/autograd.md for the families and for
the include layout.
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterable, Iterator

import attrs

from schemac.backends.autograd.factories import factories_files
from schemac.backends.autograd.functions import functions_files
from schemac.backends.autograd.inplace_or_view import inplace_or_view_files
from schemac.backends.autograd.operators import OperatorPlan, operator_plans
from schemac.backends.autograd.policy import AutogradPolicy
from schemac.backends.autograd.trace_type import NUM_SHARDS as TRACE_SHARDS
from schemac.backends.autograd.trace_type import trace_files
from schemac.backends.autograd.variable_type import NUM_SHARDS as VARIABLE_TYPE_SHARDS
from schemac.backends.autograd.variable_type import variable_type_files
from schemac.backends.autograd.view_funcs import view_funcs_files
from schemac.backends.output.files import GeneratedFile
from schemac.backends.registry import EmitOptions, RunMemo
from schemac.backends.reuse import Fragments
from schemac.backends.templating import Templates, module_sources
from schemac.ir.module import Module
from schemac.profiles import ReleaseProfile, reference_profile

#: Where the files go inside OUT.
OUTPUT_DIR = "autograd"
TEMPLATES_PACKAGE = "schemac.backends.autograd"


def emit_autograd(module: Module, profile: ReleaseProfile | None = None) -> Iterator[GeneratedFile]:
    """Every file of the target: :func:`emit_nodes`', then :func:`emit_kernels`'."""
    policy = _policy(profile)
    plans = _plans(module, policy, RunMemo())
    yield from _nodes(module, policy, plans, Fragments())
    yield from _kernels(module, policy, plans, Fragments())
    yield from _factories(module)


def _policy(profile: ReleaseProfile | None) -> AutogradPolicy:
    return AutogradPolicy.of(reference_profile() if profile is None else profile)


def _plans(module: Module, policy: AutogradPolicy, memo: RunMemo) -> tuple[OperatorPlan, ...]:
    """The operator plans both halves read, made once per run (one module, one release)."""
    return memo.get("autograd-operator-plans", lambda: operator_plans(module, policy))


def _nodes(
    module: Module,
    policy: AutogradPolicy,
    plans: tuple[OperatorPlan, ...],
    fragments: Fragments,
) -> Iterator[GeneratedFile]:
    """The backward nodes, ViewFuncs and TraceType, each yielded as
    soon as it is rendered (a file reaches the stager and loses its text while the
    next renders, instead of every text waiting in a list: the largest part of
    ``-t autograd``'s peak memory).  Nodes and kernels are printed through
    ``fragments`` (Note [Autograd pieces])."""
    templates = Templates(TEMPLATES_PACKAGE)
    sources = module_sources(module, derivatives=True)
    yield from functions_files(templates, module, policy, sources, OUTPUT_DIR, fragments)
    yield from view_funcs_files(templates, plans, sources, OUTPUT_DIR)
    yield from trace_files(
        templates,
        plans,
        sources,
        OUTPUT_DIR,
        policy.shards("trace_type", TRACE_SHARDS),
        fragments,
    )


def _kernels(
    module: Module,
    policy: AutogradPolicy,
    plans: tuple[OperatorPlan, ...],
    fragments: Fragments,
) -> Iterator[GeneratedFile]:
    """VariableType and ADInplaceOrView, each file yielded as soon as it is rendered."""
    templates = Templates(TEMPLATES_PACKAGE)
    sources = module_sources(module, derivatives=True)
    yield from variable_type_files(
        templates,
        plans,
        sources,
        OUTPUT_DIR,
        policy.shards("variable_type", VARIABLE_TYPE_SHARDS),
        fragments,
    )
    yield from inplace_or_view_files(templates, plans, sources, OUTPUT_DIR, fragments)


def _factories(module: Module) -> Iterator[GeneratedFile]:
    """``variable_factories.h``: a unit of its own, the only file of the target that
    prints default values (so the others are keyed blind to them: Note [Keys blind
    to an aspect] in :mod:`schemac.ir.slots`)."""
    templates = Templates(TEMPLATES_PACKAGE)
    yield from factories_files(
        templates, module, module_sources(module, derivatives=True), OUTPUT_DIR
    )


def _paused_collector(files: Iterable[GeneratedFile]) -> Iterator[GeneratedFile]:
    """``files`` with the cyclic collector paused while they are made, restored after."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield from files
    finally:
        if was_enabled:
            gc.enable()


def _planned_files(
    module: Module,
    options: EmitOptions,
    files: Callable[
        [Module, AutogradPolicy, tuple[OperatorPlan, ...], Fragments], Iterable[GeneratedFile]
    ],
) -> Iterable[GeneratedFile]:
    """``files`` (the nodes' or the kernels') made from the run's policy and plans.

    Emission builds many small acyclic objects (views, strings): the cyclic
    collector finds nothing to free and costs about a fifth of the time, so
    it is paused, and restored as it was."""
    policy = _policy(options.profile)
    plans = _plans(module, policy, options.memo)
    return _paused_collector(files(module, policy, plans, options.fragments))


# Two backends of one target: split emission (Note [Split emission]) can make
# ``-t autograd``'s files in two processes, each half about as costly as the other.


@attrs.frozen
class AutogradBackend:
    name: str = "autograd"
    description: str = "autograd C++: backward nodes, ViewFuncs, TraceType"
    targets: tuple[str, ...] = ("autograd",)

    def emit(self, module: Module, options: EmitOptions) -> Iterable[GeneratedFile]:
        return _planned_files(module, options, _nodes)


@attrs.frozen
class AutogradKernelsBackend:
    name: str = "autograd-kernels"
    description: str = "autograd C++: VariableType and ADInplaceOrView kernels"
    targets: tuple[str, ...] = ("autograd",)

    def emit(self, module: Module, options: EmitOptions) -> Iterable[GeneratedFile]:
        return _planned_files(module, options, _kernels)


@attrs.frozen
class AutogradFactoriesBackend:
    name: str = "autograd-factories"
    description: str = "autograd C++: variable_factories.h, the torch:: factory functions"
    targets: tuple[str, ...] = ("autograd",)

    def emit(self, module: Module, options: EmitOptions) -> Iterable[GeneratedFile]:
        return _factories(module)


BACKEND = AutogradBackend()
KERNELS_BACKEND = AutogradKernelsBackend()
FACTORIES_BACKEND = AutogradFactoriesBackend()
