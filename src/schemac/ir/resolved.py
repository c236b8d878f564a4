"""What the resolution pass derives for each native function.

The ``dispatch:`` table as written (:class:`~schemac.ir.native.DispatchEntry`)
leaves a lot implicit: an entry without one gets a CompositeImplicitAutograd
kernel named after the operator, a ``ufunc_inner_loop`` supplies CPU and CUDA
kernels, ``ns::kernel`` moves a kernel out of ``at::native``, and a structured
entry's backend kernels are structured.  A :data:`DispatchTable` is the table
with all of that made explicit, so backends never re-derive it; the
``has_composite_*`` flags and ``is_abstract`` are facts about that table that
several backends branch on, defined here once.
"""

from __future__ import annotations

from collections.abc import Iterable

import attrs

from schemac.ir.dispatch import (
    COMPOSITE_EXPLICIT,
    COMPOSITE_EXPLICIT_NON_FUNCTIONAL,
    COMPOSITE_IMPLICIT,
    COMPOSITE_IMPLICIT_NESTED,
)
from schemac.ir.frozen import FrozenMap
from schemac.ir.slots import SourceKeyed

#: The C++ namespace a kernel lives in when its name has no ``ns::`` prefix.
DEFAULT_KERNEL_NAMESPACE = "at::native"


@attrs.frozen
class Kernel:
    """The kernel one dispatch key routes an operator to."""

    name: str
    namespace: str = DEFAULT_KERNEL_NAMESPACE
    #: True when the kernel is a structured kernel (meta + impl) for this key.
    structured: bool = False

    @property
    def supports_symint(self) -> bool:
        # The kernel's C++ signature takes SymInt exactly when its name says so;
        # this is PyTorch's convention, not something the schema decides.
        return "_symint" in self.name


#: ``dispatch key -> Kernel``, in the order the keys were written.
DispatchTable = FrozenMap[str, Kernel]

_COMPOSITE_IMPLICIT_ONLY = (
    frozenset({COMPOSITE_IMPLICIT}),
    frozenset({COMPOSITE_IMPLICIT_NESTED}),
    frozenset({COMPOSITE_IMPLICIT, COMPOSITE_IMPLICIT_NESTED}),
)


@attrs.frozen
class Resolution(SourceKeyed):
    """The resolved dispatch table of one function and the facts derived from it."""

    dispatch: DispatchTable
    #: False only when every kernel is a CompositeImplicitAutograd
    #: decomposition; a structured delegate is always abstract.
    is_abstract: bool

    @staticmethod
    def abstract_by_table(dispatch: Iterable[str]) -> bool:
        """From a dispatch table's keys (a DispatchTable, or the dict it is built from)."""
        return frozenset(dispatch) not in _COMPOSITE_IMPLICIT_ONLY

    @property
    def has_composite_implicit_autograd_kernel(self) -> bool:
        return COMPOSITE_IMPLICIT in self.dispatch

    @property
    def has_composite_implicit_autograd_nested_tensor_kernel(self) -> bool:
        return COMPOSITE_IMPLICIT_NESTED in self.dispatch

    @property
    def has_composite_explicit_autograd_kernel(self) -> bool:
        return COMPOSITE_EXPLICIT in self.dispatch

    @property
    def has_composite_explicit_autograd_non_functional_kernel(self) -> bool:
        return COMPOSITE_EXPLICIT_NON_FUNCTIONAL in self.dispatch

    @property
    def has_composite_kernel(self) -> bool:
        return (
            self.has_composite_implicit_autograd_kernel
            or self.has_composite_explicit_autograd_kernel
            or self.has_composite_explicit_autograd_non_functional_kernel
        )
