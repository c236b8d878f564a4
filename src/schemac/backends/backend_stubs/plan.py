"""Which wrapper each operator gets in an out-of-tree backend's registration file.

Walking the module's grouped listing (families and lone functions, in the
reference's order), for one of the backend's keys:

* a function the YAML lists gets a *kernel* wrapper calling
  ``<Class>::<kernel>`` (Note [External kernel names] in :mod:`.bind`);
* in a family whose functional variant is listed, each unlisted out= and
  in-place variant gets a *copy-back* wrapper (call the functional wrapper,
  copy the result into the written argument), unless ``use_out_as_primary``
  says the backend writes those itself;
* a family named under ``structured`` gets ATen's structured wrappers for its
  functional, out= and in-place members: the shared ``meta()``, the
  backend's ``impl()``, allocation through the dispatcher.

Functions with ``manual_kernel_registration`` are never registered, as in
ATen's own files.
"""

from __future__ import annotations

import enum
from collections.abc import Iterator

import attrs

from schemac.backends.backend_stubs.bind import BoundBackend, BoundKernel
from schemac.ir.groups import VariantGroup
from schemac.ir.module import Module
from schemac.ir.names import OperatorName
from schemac.ir.native import NativeFunction
from schemac.ir.schema import SchemaKind


class StubKind(enum.Enum):
    KERNEL = "kernel"
    COPY_BACK = "copy-back"
    STRUCTURED = "structured"


@attrs.frozen
class Stub:
    function: NativeFunction
    kind: StubKind
    #: KERNEL: the listed kernel; STRUCTURED: the family's structured kernel.
    kernel: BoundKernel | None = None
    #: COPY_BACK: the functional variant whose wrapper computes the result.
    functional: NativeFunction | None = None
    #: STRUCTURED: the family.
    group: VariantGroup | None = None


_STRUCTURED_KINDS = (SchemaKind.functional, SchemaKind.out, SchemaKind.inplace)


def plan_stubs(module: Module, bound: BoundBackend, key: str) -> tuple[Stub, ...]:
    kernels = bound.kernels_of(key)
    structured = dict(bound.structured) if key == bound.spec.backend else {}
    stubs: list[Stub] = []
    for item in module.grouped_functions:
        if not isinstance(item, VariantGroup):
            f = module.function(item)
            listed = kernels.get(item)
            if listed is not None and not f.manual_kernel_registration:
                stubs.append(Stub(f, StubKind.KERNEL, kernel=listed))
            continue
        if item in structured:
            stubs.extend(_structured(module, item, structured[item]))
            continue
        if not any(name in kernels for name in item.members()):
            continue  # most families: nothing listed, nothing to look up
        stubs.extend(_family(module, item, kernels, bound.spec.use_out_as_primary))
    return tuple(stubs)


def _structured(module: Module, group: VariantGroup, kernel: BoundKernel) -> Iterator[Stub]:
    for name in group.members():
        f = module.function(name)
        if f.func.kind() in _STRUCTURED_KINDS and not f.manual_kernel_registration:
            yield Stub(f, StubKind.STRUCTURED, kernel=kernel, group=group)


def _family(
    module: Module,
    group: VariantGroup,
    kernels: dict[OperatorName, BoundKernel],
    use_out_as_primary: bool,
) -> Iterator[Stub]:
    functional_listed = group.functional in kernels
    functional = module.function(group.functional)
    for name in group.members():
        f = module.function(name)
        if f.manual_kernel_registration:
            continue
        listed = kernels.get(name)
        if listed is not None:
            yield Stub(f, StubKind.KERNEL, kernel=listed)
        elif (
            functional_listed
            and not use_out_as_primary
            and f.func.kind() in (SchemaKind.out, SchemaKind.inplace)
            and _results_fit(f, functional)
        ):
            yield Stub(f, StubKind.COPY_BACK, functional=functional)


def _results_fit(f: NativeFunction, functional: NativeFunction) -> bool:
    """The functional variant's results can be copied into ``f``'s written arguments.

    Not so in families whose functional variant returns more than its out= or
    in-place variant (``_amp_update_scale`` returns the scale and the tracker,
    ``_amp_update_scale_`` only the scale): torchgen generates a wrapper there
    that does not compile; schemac registers none (the variant is then missing
    on the device, and ``schemac coverage`` says so).
    """
    returns = len(f.func.returns)
    return returns == 0 or returns == len(functional.func.returns)
