"""Per-operator policy of the functionalization and vmap backends, as data.

Almost everything those backends write follows from the IR: view groups,
variant groups, which arguments an operator writes, its tags and dispatch
table.  A few operators are exceptions that PyTorch handles by hand, and
torchgen keeps the list of them in its code.  schemac keeps every such list
here, in one record per torch release, so the emitters ask a named question
(``policy.hand_written_functionalization``) and never spell an operator name.

When release profiles (``schemac.profiles``) land, these records move there;
until then :data:`DEFAULT_POLICY` is torch 2.13's.
"""

from __future__ import annotations

import attrs

from schemac.ir.names import OperatorName
from schemac.ir.schema import FunctionSchema


def _names(*names: str) -> frozenset[str]:
    return frozenset(names)


@attrs.frozen
class InverseDeclaration:
    """A view inverse PyTorch implements by hand for a CompositeImplicit view.

    Parameters are ``(C++ type, name)`` pairs after the three every inverse
    takes (``base``, ``mutated_view``, ``inverse_return_mode``).
    """

    name: str
    params: tuple[tuple[str, str], ...]


@attrs.frozen
class ReleasePolicy:
    #: Families whose functionalization kernels PyTorch writes by hand
    #: (FunctionalizeFallbackKernel.cpp): no member of a variant family that
    #: contains one of these operators gets a generated kernel or registration.
    hand_written_functionalization: frozenset[str]
    #: View operators whose functionalization kernel is hand-written; their
    #: ViewMeta class and inverse are still generated.
    hand_written_view_functionalization: frozenset[str]
    #: out= operators whose functional call keeps the out tensor's dtype when
    #: ``dtype`` is not given (eager computes in the out dtype).
    out_dtype_preserving_ops: frozenset[str]
    #: The view whose ViewMeta says ``is_as_strided``.
    as_strided_views: frozenset[str]
    #: Inverses of CompositeImplicit views that FunctionalInverses.h declares
    #: anyway, because PyTorch's own inverses call them.
    hand_declared_inverses: tuple[InverseDeclaration, ...]
    #: Operators that get vmap plumbing although a return is not tensor-like
    #: (their batch rules return SymInts next to the tensors).
    vmap_non_tensor_return_ops: frozenset[str]

    def is_out_dtype_preserving(self, func: FunctionSchema) -> bool:
        return str(func.name) in self.out_dtype_preserving_ops

    def hand_writes_family(self, names: frozenset[OperatorName]) -> bool:
        return any(str(name) in self.hand_written_functionalization for name in names)


TORCH_2_13 = ReleasePolicy(
    hand_written_functionalization=_names("set_.source_Tensor", "lift", "resize_"),
    hand_written_view_functionalization=_names("lift_fresh"),
    out_dtype_preserving_ops=_names("cumsum.out", "cumprod.out"),
    as_strided_views=_names("as_strided"),
    hand_declared_inverses=(
        InverseDeclaration(
            "chunk_inverse", (("int64_t", "mutated_view_idx"), ("int", "chunks"), ("int", "dim"))
        ),
        InverseDeclaration(
            "narrow_inverse", (("int", "dim"), ("c10::SymInt", "start"), ("c10::SymInt", "length"))
        ),
    ),
    vmap_non_tensor_return_ops=_names(
        "_scaled_dot_product_flash_attention",
        "_scaled_dot_product_cudnn_attention",
        "_scaled_dot_product_flash_attention_quantized",
    ),
)

DEFAULT_POLICY = TORCH_2_13
