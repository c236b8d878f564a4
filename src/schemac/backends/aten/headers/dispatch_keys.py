"""``ops/<op>_<key>_dispatch.h``, ``<Key>Functions.h`` and ``<Key>Functions_inl.h``.

``at::cpu::add(...)`` calls the CPU kernel of ``add`` directly, skipping the
dispatcher.  For every dispatch key in :data:`HEADER_KEYS`, each function
that the key's registration file defines a wrapper for gets the C++ API
view's overloads declared in ``at::<key>``; ``Register<Key>.cpp`` defines
them.  Which functions those are is the registration backend's plan
(:func:`~schemac.backends.aten.registrations.plan.plan_key`: kernels of the
key, structured groups, the generated Meta and
CompositeExplicitAutogradNonFunctional kernels, in-place meta stubs), used
here as is so that declarations and definitions cannot disagree.
"""

from __future__ import annotations

from collections.abc import Sequence

import attrs

from schemac.backends.aten.headers.catalog import Catalog, Entry
from schemac.backends.aten.headers.export_macros import DEFAULT_EXPORT
from schemac.backends.aten.registrations.keys import key_traits
from schemac.backends.aten.registrations.plan import PlanIndex, plan_keys
from schemac.ir.dispatch import CODEGEN_DISPATCH_KEYS
from schemac.ir.module import Module

_WITH_HEADERS = frozenset(
    {
        "CPU", "CUDA", "MPS", "SparseMPS", "SparseCsrMPS", "XPU", "Meta",
        "CompositeImplicitAutograd", "CompositeImplicitAutogradNestedTensor",
        "CompositeExplicitAutograd", "CompositeExplicitAutogradNonFunctional",
    }
)  # fmt: skip

#: The keys with ``at::<key>::`` function headers, in the dispatcher's order.
HEADER_KEYS: tuple[str, ...] = tuple(k for k in CODEGEN_DISPATCH_KEYS if k in _WITH_HEADERS)


def declared_by_root(
    module: Module, catalog: Catalog, key: str, index: PlanIndex | None = None
) -> dict[str, list[Entry]]:
    """Root name -> the functions ``at::<key>`` declares, in listing order.

    ``index``: the module's plan index, if the caller plans several keys.
    """
    return declared_by_keys(module, catalog, (key,), index)[key]


def declared_by_keys(
    module: Module, catalog: Catalog, keys: Sequence[str], index: PlanIndex | None = None
) -> dict[str, dict[str, list[Entry]]]:
    """:func:`declared_by_root` of each of ``keys``, planned together (:func:`~.plan.plan_keys`)."""
    by_name = catalog.by_name
    result: dict[str, dict[str, list[Entry]]] = {}
    plans = plan_keys(module, [key_traits(key) for key in keys], index)
    for key, planned in zip(keys, plans, strict=True):
        declared: dict[str, list[Entry]] = {}
        for item in planned:
            entries = [by_name[w.function.func.name] for w in item.wrappers]
            found = declared.get(item.root_name)
            if found is None:
                declared[item.root_name] = entries
            else:
                found += entries
        result[key] = declared
    return result


@attrs.frozen
class DispatchHeader:
    """One ``ops/<op>_<key>_dispatch.h``."""

    root: str
    namespace: str
    declarations: tuple[str, ...]

    @property
    def path(self) -> str:
        return f"ATen/ops/{self.root}_{self.namespace}_dispatch.h"


def dispatch_header_path(root: str, key: str) -> str:
    return f"ATen/ops/{root}_{key.lower()}_dispatch.h"


def dispatch_header(
    root: str, entries: list[Entry], key: str, export: str = DEFAULT_EXPORT
) -> DispatchHeader:
    """``export``: the key's export macro (:func:`~.export_macros.dispatch_export`).
    Each signature keeps its declaration, so the keys that declare a function
    print it once."""
    decls = tuple(f"{export} {sig.decl()};" for entry in entries for sig in entry.direct.all())
    return DispatchHeader(root, key.lower(), decls)


@attrs.frozen
class KeyUmbrella:
    """``<Key>Functions.h`` and ``<Key>Functions_inl.h``."""

    key: str
    namespace: str
    includes: tuple[str, ...]


def key_umbrella(key: str, declared: dict[str, list[Entry]]) -> KeyUmbrella:
    """``declared``: :func:`declared_by_root` for ``key``."""
    paths = sorted(dispatch_header_path(root, key) for root in declared)
    return KeyUmbrella(key, key.lower(), tuple(paths))
