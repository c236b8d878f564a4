"""Which wrapper each operator gets in one dispatch key's registration file.

For every item of the module's grouped listing (a variant group or a lone
function) and one dispatch key, :func:`plan_key` decides what the file
contains, following PyTorch's rules:

* a structured group whose out= kernel for the key is structured gets
  structured wrappers for all its members (a class deriving from the
  kernel's ``structured_<kernel>`` class per member kind);
* ``Meta`` gets structured wrappers for *every* structured group, built from
  the shared ``meta()`` alone (no ``impl()``): that is how structured
  operators get meta kernels for free;
* ``CompositeExplicitAutogradNonFunctional`` likewise gets functional and
  in-place wrappers for every structured group, calling the out= operator
  through the dispatcher (never an out= wrapper: that is the kernel a backend
  must write);
* every other function with a kernel for the key gets a plain wrapper that
  calls the kernel, with the key's device check and guard;
* ``Meta`` also gets a stub for in-place operators without a meta kernel or a
  composite one, which only checks that ``self`` is a meta tensor.

The plan is data (frozen records), so the emitters are straight-line code and
the conformance tests can count registrations without rendering C++.
"""

from __future__ import annotations

import enum
from collections.abc import Iterator

import attrs

from schemac.backends.aten.registrations.keys import KeyTraits
from schemac.ir.groups import VariantGroup
from schemac.ir.module import Module
from schemac.ir.names import OperatorName
from schemac.ir.native import NativeFunction
from schemac.ir.resolved import Kernel
from schemac.ir.schema import SchemaKind


class WrapperKind(enum.Enum):
    #: Calls the key's kernel for the function (``at::native::add_out``).
    KERNEL = "kernel"
    #: A structured class per member kind; ``meta()`` then ``impl()``.
    STRUCTURED = "structured"
    #: Meta stub for an in-place operator: checks ``self.is_meta()``.
    INPLACE_META = "inplace-meta"


@attrs.frozen
class StructuredGroup:
    """What structured wrappers of one group need besides the function itself."""

    functional: NativeFunction
    out: NativeFunction
    #: The backend's structured kernel; None for the generated Meta and
    #: CompositeExplicitAutogradNonFunctional wrappers.
    kernel: Kernel | None


@attrs.frozen
class Wrapper:
    function: NativeFunction
    kind: WrapperKind
    #: The function's own kernel for the key: the one a KERNEL wrapper calls;
    #: for a STRUCTURED wrapper it only decides whether sizes are symbolic.
    kernel: Kernel | None = None
    structured: StructuredGroup | None = None

    @property
    def name(self) -> OperatorName:
        return self.function.func.name


@attrs.frozen
class PlannedItem:
    """The wrappers of one grouped item; ``root_name`` picks its shard and headers."""

    root_name: str
    wrappers: tuple[Wrapper, ...]


def plan_key(module: Module, traits: KeyTraits) -> tuple[PlannedItem, ...]:
    """The non-empty items of ``traits.key``'s registration file, in module order."""
    items = []
    for item in module.grouped_functions:
        wrappers = tuple(_plan_item(module, item, traits))
        if wrappers:
            items.append(PlannedItem(wrappers[0].function.func.name.name.base, wrappers))
    return tuple(items)


def _kernel(module: Module, f: NativeFunction, key: str) -> Kernel | None:
    resolution = module.resolutions.get(f.func.name)
    return None if resolution is None else resolution.dispatch.get(key)


def _members(module: Module, group: VariantGroup) -> tuple[NativeFunction, ...]:
    found = (module.find_function(name) for name in group.members())
    return tuple(f for f in found if f is not None)


def _plan_item(
    module: Module, item: VariantGroup | OperatorName, traits: KeyTraits
) -> Iterator[Wrapper]:
    if isinstance(item, OperatorName):
        f = module.find_function(item)
        if f is not None:
            yield from _plain(module, f, traits)
        return
    members = _members(module, item)
    functional, out = module.find_function(item.functional), module.find_function(item.out)
    if item.structured and functional is not None and out is not None:
        structured = _structured_group(module, functional, out, traits)
        if structured is not None:
            for f in members:
                if traits.is_composite_non_functional and f.func.kind() is SchemaKind.out:
                    continue  # the out= kernel is what a backend implements
                own = _kernel(module, f, traits.key)
                yield Wrapper(f, WrapperKind.STRUCTURED, kernel=own, structured=structured)
            return
    for f in members:
        yield from _plain(module, f, traits)


def _structured_group(
    module: Module, functional: NativeFunction, out: NativeFunction, traits: KeyTraits
) -> StructuredGroup | None:
    if traits.is_meta or traits.is_composite_non_functional:
        return StructuredGroup(functional, out, None)
    kernel = _kernel(module, out, traits.key)
    if kernel is None or not kernel.structured:
        return None
    return StructuredGroup(functional, out, kernel)


def _plain(module: Module, f: NativeFunction, traits: KeyTraits) -> Iterator[Wrapper]:
    if f.manual_kernel_registration:
        return
    kernel = _kernel(module, f, traits.key)
    if kernel is not None:
        yield Wrapper(f, WrapperKind.KERNEL, kernel=kernel)
    elif traits.is_meta and _needs_inplace_meta_stub(module, f):
        yield Wrapper(f, WrapperKind.INPLACE_META)


def _needs_inplace_meta_stub(module: Module, f: NativeFunction) -> bool:
    resolution = module.resolutions.get(f.func.name)
    has_composite = resolution is not None and resolution.has_composite_kernel
    return (
        f.func.kind() is SchemaKind.inplace
        and not has_composite
        # A stub cannot check a list of tensors in place.
        and len(f.func.returns) == 1
    )
