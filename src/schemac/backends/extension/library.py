"""The library one extension compile builds: its namespace, operator families
and the module as the extension sees it.

Two things differ from the ATen reading of the same IR, both decided here
once:

* kernels named without ``ns::`` live in ``<ns>::native``, not in
  ``at::native`` (an extension must not add names to ATen's namespaces);
* an ``autogen:`` out= variant is defined returning ``()``: torch.compile
  refuses a custom operator whose output aliases an input (Note [Mutating
  operators may return nothing] in ``schemac.ir.schema``).

A *family* is every function sharing a root name (``scale``, ``scale_``,
``scale.out``): they share a structured class and a backward node, so their
registrations live in one ``.cpp``, and editing one operator recompiles one
file.
"""

from __future__ import annotations

import attrs

from schemac.ir.frozen import FrozenMap
from schemac.ir.module import Module
from schemac.ir.native import NativeFunction
from schemac.ir.resolved import DEFAULT_KERNEL_NAMESPACE, Resolution
from schemac.ir.schema import SchemaKind


@attrs.frozen
class Family:
    """The functions of one root name, in module order."""

    root: str
    functions: tuple[NativeFunction, ...]


@attrs.frozen
class ExtensionLibrary:
    namespace: str
    #: The module with the extension's kernel namespaces and autogen'd returns.
    module: Module
    families: tuple[Family, ...]

    @property
    def kernel_namespace(self) -> str:
        return f"{self.namespace}::native"

    @property
    def meta_namespace(self) -> str:
        return f"{self.namespace}::meta"


def root_name(function: NativeFunction) -> str:
    return function.func.name.name.base


def library_of(module: Module, namespace: str) -> ExtensionLibrary:
    """The extension's view of ``module`` (checked by :mod:`.checks` first)."""
    functions = tuple(_returning_nothing_if_autogen_out(f) for f in module.functions)
    resolutions = FrozenMap.of(
        {name: _in_namespace(r, f"{namespace}::native") for name, r in module.resolutions.items()}
    )
    extension_module = module.evolve(functions=functions, resolutions=resolutions)
    by_root: dict[str, list[NativeFunction]] = {}
    for f in functions:
        by_root.setdefault(root_name(f), []).append(f)
    families = tuple(Family(root, tuple(fs)) for root, fs in by_root.items())
    return ExtensionLibrary(namespace, extension_module, families)


def _returning_nothing_if_autogen_out(f: NativeFunction) -> NativeFunction:
    if not (f.generated and f.func.kind() is SchemaKind.out and f.func.returns):
        return f
    return attrs.evolve(f, func=attrs.evolve(f.func, returns=()))


def _in_namespace(resolution: Resolution, namespace: str) -> Resolution:
    table = {
        key: attrs.evolve(kernel, namespace=namespace)
        if kernel.namespace == DEFAULT_KERNEL_NAMESPACE
        else kernel
        for key, kernel in resolution.dispatch.items()
    }
    return attrs.evolve(resolution, dispatch=FrozenMap.of(table))
