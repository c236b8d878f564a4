"""``ATen/Register<Key>_<n>.cpp``: one dispatch key's kernels, registered.

One file (or, for large keys, a few shards plus ``Register<Key>Everything.cpp``)
per dispatch key.  Its layout, inside ``namespace at``:

1. in an anonymous namespace: the helpers of structured wrappers
   (:mod:`.helpers`), every wrapper (:mod:`.wrappers`, :mod:`.structured`)
   and one ``TORCH_LIBRARY_IMPL(<ns>, <Key>, m)`` block per operator
   namespace registering them;
2. ``namespace <key>``: the direct-call functions (``at::cpu::add``) declared
   by the per-operator ``<op>_<key>_dispatch.h`` headers.

Sharding (see docs/backends.md): items are whole operator families, keyed by
root name (``add`` for ``add.Tensor``, ``add_`` and ``add.out``) so that one
family's structured classes and headers stay in one file; the shard is picked
by a stable hash of that name (:mod:`schemac.backends.output.sharding`).  CPU,
the largest key, has 4 shards and every other key 1: the same file names as
PyTorch's build expects.  Each shard includes only its own operators' headers.
"""

from __future__ import annotations

from collections.abc import Iterator

import attrs

from schemac.backends.aten.registrations.helpers import helper_functions
from schemac.backends.aten.registrations.keys import KeyTraits, key_traits
from schemac.backends.aten.registrations.plan import PlannedItem, Wrapper, WrapperKind, plan_key
from schemac.backends.aten.registrations.structured import structured_wrapper_definition
from schemac.backends.aten.registrations.wrappers import (
    direct_call_functions,
    kernel_wrapper_definition,
    registration,
)
from schemac.backends.output import GeneratedFile, ShardedFile, sharded
from schemac.backends.templating import Templates
from schemac.ir.module import Module
from schemac.ir.names import OperatorName

TEMPLATE = "RegisterDispatchKey.cpp.mako"
PACKAGE = "schemac.backends.aten.registrations"

#: Shards per key; keys not listed get one.
NUM_SHARDS = {"CPU": 4}


@attrs.frozen
class RegisterFileView:
    """Everything ``RegisterDispatchKey.cpp.mako`` lays out."""

    key: str
    namespace: str
    shard_note: str
    headers: tuple[str, ...]
    helpers: tuple[str, ...]
    definitions: tuple[str, ...]
    #: ``(operator namespace, m.impl(...) lines)``.
    registrations: tuple[tuple[str, tuple[str, ...]], ...]
    direct_calls: tuple[str, ...]


def _headers(items: tuple[PlannedItem, ...], traits: KeyTraits) -> tuple[str, ...]:
    headers = set()
    for item in items:
        headers.add(f"ATen/ops/{item.root_name}_native.h")
        if traits.is_composite_non_functional:
            headers.add(f"ATen/ops/{item.root_name}.h")  # calls at::<op>_outf
        if traits.has_functions_header:
            headers.add(f"ATen/ops/{item.root_name}_{traits.namespace}_dispatch.h")
    return traits.extra_headers + tuple(sorted(headers))


def _definition(wrapper: Wrapper, traits: KeyTraits) -> str:
    if wrapper.kind is WrapperKind.STRUCTURED:
        return structured_wrapper_definition(wrapper, traits)
    return kernel_wrapper_definition(wrapper, traits)


def _registrations(
    wrappers: list[Wrapper], traits: KeyTraits, registered: frozenset[OperatorName] | None
) -> tuple[tuple[str, tuple[str, ...]], ...]:
    by_namespace: dict[str, list[str]] = {}
    for wrapper in wrappers:
        if registered is not None and wrapper.name not in registered:
            continue
        by_namespace.setdefault(wrapper.function.namespace, []).append(
            registration(wrapper, traits)
        )
    return tuple((ns, tuple(lines)) for ns, lines in by_namespace.items())


def file_view(
    items: tuple[PlannedItem, ...],
    traits: KeyTraits,
    shard_note: str = "",
    registered: frozenset[OperatorName] | None = None,
) -> RegisterFileView:
    """``registered``: register only these operators (selective build); None: all."""
    wrappers = [w for item in items for w in item.wrappers]
    return RegisterFileView(
        key=traits.key,
        namespace=traits.namespace,
        shard_note=shard_note,
        headers=_headers(items, traits),
        helpers=helper_functions(traits),
        definitions=tuple(_definition(w, traits) for w in wrappers),
        registrations=_registrations(wrappers, traits, registered),
        direct_calls=tuple(text for w in wrappers for text in direct_call_functions(w, traits)),
    )


def register_key_files(module: Module, key: str, templates: Templates) -> Iterator[GeneratedFile]:
    """The shards and the Everything file of ``key`` (empty files if it has no kernels)."""
    traits = key_traits(key)
    items = plan_key(module, traits)
    sources = (module.sources.native_functions,)
    # Under selective build, operators kept only as dependencies of selected
    # ones keep their wrappers (direct calls use them) but are not registered.
    registered = None if module.selection is None else frozenset(module.selection.selected)
    files = ShardedFile(f"ATen/Register{key}.cpp", NUM_SHARDS.get(key, 1))
    shards = sharded(items, lambda item: item.root_name, files.num_shards)
    for index, shard in enumerate(shards):
        note = f", shard {index + 1} of {files.num_shards}"
        text = templates.render(
            TEMPLATE, file_view(shard, traits, note, registered), sources=sources
        )
        yield GeneratedFile(files.shard_path(index), text)
    everything = templates.render(
        TEMPLATE, file_view(items, traits, registered=registered), sources=sources
    )
    yield GeneratedFile(files.everything_path, everything)
