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
from typing import Protocol

import attrs

from schemac.backends.autograd.kernel_texts import (
    Registrations,
    kernel_texts,
    registrations_by_library,
)
from schemac.backends.autograd.operators import OperatorPlan
from schemac.backends.output.files import GeneratedFile, Provenance
from schemac.backends.output.sharding import ShardedFile, sharded
from schemac.backends.templating import Templates


class RegisteredKernel(Protocol):
    """What the registration line needs of a kernel view."""

    @property
    def name(self) -> str: ...
    @property
    def schema_name(self) -> str: ...
    @property
    def namespace(self) -> str: ...


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
    kernel_of: Callable[[OperatorPlan], RegisteredKernel]
    #: The partial printing every kernel (see kernel_texts.py).
    kernels_template: str
    #: The template of one file, rendered with a :class:`KernelShardView`.
    file_template: str


def kernel_shard_files(
    family: KernelFamily,
    templates: Templates,
    chosen: tuple[OperatorPlan, ...],
    sources: Provenance,
    directory: str,
) -> Iterator[GeneratedFile]:
    files = ShardedFile(f"{directory}/{family.stem}.cpp", family.shards)
    # Each kernel is built and printed once: it appears in its shard and in
    # the Everything file.
    kernels = {plan.schema_name: family.kernel_of(plan) for plan in chosen}
    printed = kernel_texts(templates, family.kernels_template, list(kernels.values()))
    texts = dict(zip(kernels, printed, strict=True))
    entries = {
        name: (
            k.namespace,
            f'm.impl("{k.schema_name}", TORCH_FN({family.cpp_namespace}::{k.name}));',
        )
        for name, k in kernels.items()
    }
    del kernels  # printed: let the views go (see kernel_texts.py)

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
