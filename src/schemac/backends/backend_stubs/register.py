"""``Register<Key>.cpp`` of an out-of-tree backend, and the kernels' declarations.

The wrappers are ATen's (:mod:`schemac.backends.aten.registrations`), given
the backend's :class:`~schemac.backends.aten.registrations.keys.KeyTraits`:
no allocator of its own (structured outputs are allocated through the
dispatcher, ``at::empty``), device checks and guards exactly when the YAML
says ``device_guard: True``, no ``at::<key>::`` direct-call functions.  What
differs from ATen's kernels is only which function a wrapper calls: a static
member of the backend's class, with the dispatcher's parameters (Note
[External kernel names]).
"""

from __future__ import annotations

import attrs

from schemac.backends.aten.registrations.helpers import helper_functions
from schemac.backends.aten.registrations.keys import KeyTraits
from schemac.backends.aten.registrations.plan import StructuredGroup, Wrapper, WrapperKind
from schemac.backends.aten.registrations.structured import structured_wrapper_definition
from schemac.backends.aten.registrations.wrappers import (
    kernel_wrapper_definition,
    registration,
    wrapper_signature,
)
from schemac.backends.aten.signatures import Signature
from schemac.backends.aten.signatures.dispatcher import dispatcher_signature
from schemac.backends.aten.signatures.table import ViewTable
from schemac.backends.backend_stubs.bind import BoundBackend, BoundKernel
from schemac.backends.backend_stubs.copy_back import copy_back_definition
from schemac.backends.backend_stubs.plan import Stub, StubKind
from schemac.ir.module import Module
from schemac.ir.native import NativeFunction

#: What every external registration file includes after the common headers:
#: the whole operator API (a backend's build does not have per-operator headers).
_HEADERS = ("ATen/NativeFunctions.h", "ATen/Functions.h", "c10/macros/Macros.h")


def external_key_traits(key: str, bound: BoundBackend) -> KeyTraits:
    allocates = bool(bound.structured)
    return KeyTraits(
        key=key,
        namespace=key.lower(),
        device_guard=bound.spec.device_guard,
        cuda_like=False,
        # Only structured wrappers allocate; without them torchgen's file has no
        # create_out, and schemac's the same.
        empty="at::empty" if allocates else None,
        empty_strided="at::empty_strided" if allocates else None,
        structured_guard=None,
        guarded_outputs=False,
        has_helpers=True,
        has_functions_header=False,
        extra_headers=_HEADERS + bound.spec.extra_headers,
    )


def kernel_signature(bound: BoundKernel, views: ViewTable | None = None) -> Signature:
    """The kernel a wrapper calls: the dispatcher's parameters, sizes symbolic if listed.

    ``views``: the run's table, whose (symbolic) dispatcher view a ``symint``
    kernel shares rather than computing it again.
    """
    if bound.symint and views is not None:
        sig = views.dispatcher(bound.function)
    else:
        sig = dispatcher_signature(bound.function, symint=bound.symint)
    return Signature(name=bound.kernel.name, params=sig.params, returns=sig.returns)


@attrs.frozen
class StubText:
    definition: str
    registration: str
    namespace: str


class StubPrinter:
    """Prints the wrappers of one key; one per key and run."""

    def __init__(self, module: Module, bound: BoundBackend, key: str, views: ViewTable) -> None:
        self.module = module
        self.bound = bound
        self.traits = external_key_traits(key, bound)
        self.views = views
        self._kernel_sigs: dict[int, Signature] = {}

    def kernel_sig(self, bound: BoundKernel) -> Signature:
        sig = self._kernel_sigs.get(id(bound))
        if sig is None:
            sig = self._kernel_sigs[id(bound)] = kernel_signature(bound, self.views)
        return sig

    def _plain(self, f: NativeFunction) -> Signature:
        return wrapper_signature(Wrapper(f, WrapperKind.KERNEL), self.traits, self.views)

    def text(self, stub: Stub) -> StubText:
        f = stub.function
        if stub.kind is StubKind.KERNEL and stub.kernel is not None:
            wrapper = Wrapper(f, WrapperKind.KERNEL, kernel=stub.kernel.kernel)
            sig = wrapper_signature(wrapper, self.traits, self.views)
            definition = kernel_wrapper_definition(
                wrapper, self.traits, sig, self.views, self.kernel_sig(stub.kernel)
            )
        elif stub.kind is StubKind.COPY_BACK and stub.functional is not None:
            wrapper = Wrapper(f, WrapperKind.KERNEL)
            sig = self._plain(f)
            definition = copy_back_definition(f, sig, stub.functional, self._plain(stub.functional))
        elif stub.kind is StubKind.STRUCTURED and stub.group is not None and stub.kernel:
            group = stub.group
            structured = StructuredGroup(
                self.module.function(group.functional),
                self.module.function(group.out),
                stub.kernel.kernel,
            )
            wrapper = Wrapper(f, WrapperKind.STRUCTURED, structured=structured)
            sig = wrapper_signature(wrapper, self.traits, self.views)
            definition = structured_wrapper_definition(wrapper, self.traits, sig, self.views)
        else:
            raise ValueError(f"incomplete stub for {f.func.name}: {stub}")
        return StubText(definition, registration(wrapper, sig), f.namespace)

    def helpers(self) -> tuple[str, ...]:
        return helper_functions(self.traits)


def kernel_declarations(stubs: tuple[Stub, ...], printer: StubPrinter) -> list[str]:
    """``static <signature>;`` per listed kernel, each text once, sorted (torchgen's order)."""
    texts = set()
    for stub in stubs:
        if stub.kind is StubKind.KERNEL and stub.kernel is not None:
            texts.add(f"static {printer.kernel_sig(stub.kernel).decl()};")
    return sorted(texts)
