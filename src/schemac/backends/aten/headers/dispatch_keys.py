"""``ops/<op>_<key>_dispatch.h``, ``<Key>Functions.h`` and ``<Key>Functions_inl.h``.

``at::cpu::add(...)`` calls the CPU kernel of ``add`` directly, skipping the
dispatcher.  For every dispatch key in :data:`HEADER_KEYS`, the functions
that the key's registration file defines a wrapper for get the C++ API
view's overloads declared in ``at::<key>`` (the definitions live in
``Register<Key>.cpp``).  Which functions those are (:func:`declares`):

* a function with a kernel for the key, unless its kernel is registered by
  hand (``manual_kernel_registration``);
* every member of a structured group whose out= kernel for the key is
  structured;
* for ``Meta``, every member of every structured group (meta kernels of
  structured operators are generated from their ``meta()``), and every
  in-place operator with no kernel and no composite kernel (a generated meta
  kernel that only checks and returns ``self``);
* for ``CompositeExplicitAutogradNonFunctional``, the functional and in-place
  members of every structured group (generated from the out= kernel).
"""

from __future__ import annotations

from collections.abc import Iterator

import attrs

from schemac.backends.aten.headers.catalog import Catalog, Entry, Family, Group
from schemac.ir.dispatch import CODEGEN_DISPATCH_KEYS, COMPOSITE_EXPLICIT_NON_FUNCTIONAL
from schemac.ir.schema import SchemaKind

META = "Meta"

#: The keys with ``at::<key>::`` function headers, in the dispatcher's order.
HEADER_KEYS: tuple[str, ...] = tuple(
    k
    for k in CODEGEN_DISPATCH_KEYS
    if k
    in {
        "CPU",
        "CUDA",
        "MPS",
        "SparseMPS",
        "SparseCsrMPS",
        "XPU",
        "Meta",
        "CompositeImplicitAutograd",
        "CompositeImplicitAutogradNestedTensor",
        "CompositeExplicitAutograd",
        "CompositeExplicitAutogradNonFunctional",
    }
)


def _has_generated_inplace_meta(entry: Entry) -> bool:
    return (
        entry.fn.func.kind() is SchemaKind.inplace
        and not entry.resolution.has_composite_kernel
        and len(entry.fn.func.returns) == 1
    )


def _unstructured(entry: Entry, key: str) -> bool:
    if entry.kernel(key) is None and not (key == META and _has_generated_inplace_meta(entry)):
        return False
    return not entry.fn.manual_kernel_registration


def _declared_members(item: Group | Entry, key: str) -> Iterator[Entry]:
    if isinstance(item, Entry):
        if _unstructured(item, key):
            yield item
        return
    if item.structured:
        if key == META:
            yield from item.members()
            return
        if key == COMPOSITE_EXPLICIT_NON_FUNCTIONAL:
            yield from (m for m in item.members() if m.fn.func.kind() is not SchemaKind.out)
            return
        kernel = item.out.kernel(key)
        if kernel is not None and kernel.structured:
            yield from item.members()
            return
    yield from (m for m in item.members() if _unstructured(m, key))


def declares(family: Family, key: str) -> tuple[Entry, ...]:
    """The functions of ``family`` that ``at::<key>`` declares, in listing order."""
    return tuple(e for item in family.items for e in _declared_members(item, key))


@attrs.frozen
class DispatchHeader:
    """One ``ops/<op>_<key>_dispatch.h``."""

    root: str
    namespace: str
    declarations: tuple[str, ...]

    @property
    def path(self) -> str:
        return f"ATen/ops/{self.root}_{self.namespace}_dispatch.h"


def dispatch_header(family: Family, key: str) -> DispatchHeader | None:
    decls = tuple(
        f"TORCH_API {sig.decl()};" for entry in declares(family, key) for sig in entry.direct.all()
    )
    if not decls:
        return None
    return DispatchHeader(family.root, key.lower(), decls)


@attrs.frozen
class KeyUmbrella:
    """``<Key>Functions.h`` and ``<Key>Functions_inl.h``."""

    key: str
    namespace: str
    includes: tuple[str, ...]


def key_headers(catalog: Catalog, key: str) -> tuple[KeyUmbrella, tuple[DispatchHeader, ...]]:
    headers = tuple(h for h in (dispatch_header(f, key) for f in catalog.families) if h is not None)
    umbrella = KeyUmbrella(key, key.lower(), tuple(sorted(h.path for h in headers)))
    return umbrella, headers
