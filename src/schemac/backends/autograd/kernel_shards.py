"""Sharded kernel files whose kernels register under one dispatch key.

TraceType_<n>.cpp and ADInplaceOrViewType_<n>.cpp are built the same way:
one kernel per chosen operator, printed once (:mod:`.kernel_texts`), pasted
into the shard its root operator hashes to and into the Everything file, each
file ending with the ``m.impl`` lines of the kernels it holds, grouped per
library.  Only the plans chosen, the kernel view, the templates and the C++
namespace the kernels live in differ; :class:`KernelFamily` names those.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import attrs

from schemac.backends.autograd.kernel_texts import (
    Registrations,
    printed_kernels,
    registrations_by_library,
)
from schemac.backends.autograd.operators import OperatorPlan
from schemac.backends.buckets import bucketed_texts
from schemac.backends.output.files import GeneratedFile, Provenance
from schemac.backends.output.sharding import ShardedFile, sharded
from schemac.backends.reuse import Fragments
from schemac.backends.templating import Templates


@attrs.frozen
class KernelShardView:
    """What a shard (or the Everything) file template is rendered with."""

    shard: str
    headers: tuple[str, ...]
    #: Each kernel's C++ (see kernel_texts.py).
    kernel_texts: tuple[str, ...]
    registrations: Registrations


@attrs.frozen
class KernelFamily:
    """One kind of sharded kernel file: ``<stem>_<n>.cpp`` and ``<stem>Everything.cpp``."""

    stem: str
    shards: int
    #: The C++ namespace the kernels are defined in (``TraceType``).
    cpp_namespace: str
    #: The kernel's view, made from the plan alone (Note [Autograd pieces]); it
    #: is registered as ``plan.wrapper`` under ``plan.schema_name``.
    kernel_of: Callable[[OperatorPlan], object]
    #: The partial printing every kernel (see kernel_texts.py).
    kernels_template: str
    #: The template of one file, rendered with a :class:`KernelShardView`.
    file_template: str


def _render_kernels(
    context: tuple[Templates, KernelFamily], inputs: tuple[str, tuple[OperatorPlan, ...]]
) -> str:
    """A bucket of one family's kernels (Note [Autograd pieces])."""
    templates, family = context
    kernels = [family.kernel_of(plan) for plan in inputs[1]]
    return printed_kernels(templates, family.kernels_template, kernels)


def kernel_shard_files(
    family: KernelFamily,
    templates: Templates,
    chosen: tuple[OperatorPlan, ...],
    sources: Provenance,
    directory: str,
    fragments: Fragments | None = None,
) -> Iterator[GeneratedFile]:
    """``fragments``: where the kernels are printed (the target's)."""
    files = ShardedFile(f"{directory}/{family.stem}.cpp", family.shards)
    # Each kernel is printed once: it appears in its shard and in the
    # Everything file.
    printed = bucketed_texts(
        Fragments() if fragments is None else fragments,
        _render_kernels,
        family.stem,
        chosen,
        [plan.schema_name for plan in chosen],
        (templates, family),
    )
    texts = {plan.schema_name: text for plan, text in zip(chosen, printed, strict=True)}
    del printed
    entries = {
        plan.schema_name: (
            plan.fn.namespace,
            f'm.impl("{plan.schema_name}", TORCH_FN({family.cpp_namespace}::{plan.wrapper}));',
        )
        for plan in chosen
    }

    def render(label: str, shard: tuple[OperatorPlan, ...]) -> str:
        view = KernelShardView(
            label,
            tuple(sorted({p.root_name for p in shard})),
            tuple(texts[p.schema_name] for p in shard),
            registrations_by_library(entries[p.schema_name] for p in shard),
        )
        return templates.render(family.file_template, view, sources=sources)

    for index, shard in enumerate(_by_root_shard(chosen, family.shards)):
        yield GeneratedFile(files.shard_path(index), render(str(index), shard))
    yield GeneratedFile(files.everything_path, render("Everything", chosen))


def _by_root_shard(
    plans: tuple[OperatorPlan, ...], shards: int
) -> tuple[tuple[OperatorPlan, ...], ...]:
    """``sharded(plans, root_name, shards)``, hashing each root name once.

    Variants share a root (``add``, ``add_``, ``add.out``): torch's 3,086
    traced operators have 1,331 roots, and each shard index is a SHA-256.
    """
    roots = tuple(dict.fromkeys(p.root_name for p in plans))
    shard_of = {root: i for i, bucket in enumerate(sharded(roots, str, shards)) for root in bucket}
    buckets: list[list[OperatorPlan]] = [[] for _ in range(shards)]
    for plan in plans:
        buckets[shard_of[plan.root_name]].append(plan)
    return tuple(tuple(bucket) for bucket in buckets)
