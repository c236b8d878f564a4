"""VariableType.h and VariableType_<n>.cpp: the Autograd-key kernels and registrations.

Kernels are sharded by their C++ name (stable sharding: adding an operator
changes one shard); each shard registers its own kernels, one
``TORCH_LIBRARY_IMPL`` block per autograd key in use (``Default`` is the
``Autograd`` alias key; derivatives.yaml may name backend-specific keys such as
``AutogradNestedTensor``).  Operators without a formula whose outputs would be
differentiable get the boxed not-implemented fallback, which lets the
forward run and makes backward fail with the operator's name.
"""

from __future__ import annotations

from collections.abc import Iterator

import attrs

from schemac.backends.autograd.kernel_texts import printed_kernels
from schemac.backends.autograd.kernels import kernel_view
from schemac.backends.autograd.operators import OperatorPlan, registration_key, wrapper_name
from schemac.backends.buckets import bucketed_texts
from schemac.backends.output.files import GeneratedFile, Provenance
from schemac.backends.output.sharding import ShardedFile, sharded
from schemac.backends.reuse import Fragments
from schemac.backends.templating import Templates
from schemac.ir.autograd import DEFAULT_AUTOGRAD_KEY

NUM_SHARDS = 10


@attrs.frozen
class RegistrationBlock:
    """One ``TORCH_LIBRARY_IMPL(namespace, key, m)`` block."""

    namespace: str
    key: str
    lines: tuple[str, ...]


@attrs.frozen
class VariableTypeShardView:
    shard: str
    headers: tuple[str, ...]
    #: Each kernel's C++ (see kernel_texts.py).
    kernel_texts: tuple[str, ...]
    registrations: tuple[RegistrationBlock, ...]


@attrs.frozen
class VariableTypeHeaderView:
    pass


def _registrations(plans: tuple[OperatorPlan, ...]) -> tuple[RegistrationBlock, ...]:
    by_key: dict[tuple[str, str], list[str]] = {}
    for plan in plans:
        namespace = plan.fn.namespace
        if plan.uses_not_implemented_fallback:
            by_key.setdefault((namespace, "Autograd"), []).append(
                f'm.impl("{plan.schema_name}", torch::autograd::autogradNotImplementedFallback());'
            )
            continue
        for key in plan.autograd_keys:
            view_name = wrapper_name(plan.fn, key) if key != DEFAULT_AUTOGRAD_KEY else plan.wrapper
            by_key.setdefault((namespace, registration_key(key)), []).append(
                f'm.impl("{plan.schema_name}", TORCH_FN(VariableType::{view_name}));'
            )
    return tuple(RegistrationBlock(ns, k, tuple(v)) for (ns, k), v in sorted(by_key.items()))


def _shard_view(
    label: str, plans: tuple[OperatorPlan, ...], texts: dict[str, tuple[str, ...]]
) -> VariableTypeShardView:
    kernels = tuple(text for plan in plans for text in texts[plan.schema_name])
    headers = tuple(sorted({p.root_name for p in plans if not p.uses_not_implemented_fallback}))
    return VariableTypeShardView(label, headers, kernels, _registrations(plans))


#: What one kernel is made from: its function's plan and the autograd key.
_Piece = tuple[OperatorPlan, str]


def _render_kernels(templates: Templates, inputs: tuple[str, tuple[_Piece, ...]]) -> str:
    """A bucket of kernels (Note [Autograd pieces])."""
    views = [kernel_view(plan, key) for plan, key in inputs[1]]
    return printed_kernels(templates, "_variable_type_kernels.mako", views)


def variable_type_plans(plans: tuple[OperatorPlan, ...]) -> tuple[OperatorPlan, ...]:
    """The plans VariableType prints a kernel for (the autograd-kernels slice reads them too)."""
    return tuple(p for p in plans if p.has_generated_autograd)


def variable_type_files(
    templates: Templates,
    plans: tuple[OperatorPlan, ...],
    sources: Provenance,
    directory: str,
    shards: int = NUM_SHARDS,
    fragments: Fragments | None = None,
) -> Iterator[GeneratedFile]:
    """``shards``: how many VariableType_<n>.cpp the release writes; ``fragments``:
    where the kernels are printed (Note [Autograd pieces])."""
    chosen = variable_type_plans(plans)
    yield GeneratedFile(
        f"{directory}/VariableType.h",
        templates.render("VariableType.h.mako", VariableTypeHeaderView(), sources=sources),
    )
    # Each kernel is built and printed once: it appears in its shard and in
    # the Everything file.
    keys = {
        plan.schema_name: () if plan.uses_not_implemented_fallback else plan.autograd_keys
        for plan in chosen
    }
    pieces = [(plan, key) for plan in chosen for key in keys[plan.schema_name]]
    printed = iter(
        bucketed_texts(
            Fragments() if fragments is None else fragments,
            _render_kernels,
            "VariableType",
            pieces,
            [plan.schema_name for plan, _ in pieces],
            templates,
        )
    )
    del pieces
    texts = {name: tuple(next(printed) for _ in plan_keys) for name, plan_keys in keys.items()}
    files = ShardedFile(f"{directory}/VariableType.cpp", shards)
    for index, shard in enumerate(sharded(chosen, lambda p: p.cpp_name, shards)):
        view = _shard_view(str(index), shard, texts)
        text = templates.render("VariableType.cpp.mako", view, sources=sources)
        yield GeneratedFile(files.shard_path(index), text)
    view = _shard_view("Everything", chosen, texts)
    text = templates.render("VariableType.cpp.mako", view, sources=sources)
    yield GeneratedFile(files.everything_path, text)
