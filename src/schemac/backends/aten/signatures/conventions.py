"""Per-operator switches that change how tensors are passed in C++.

Two properties of a native function change the C++ types of *every* view of
it, not just one: ``use_const_ref_for_mutable_tensors: True`` passes mutable
tensors as ``const at::Tensor &`` (the tensor handle is not reseated, only its
data written), and membership of a structured group (``structured: True`` or
``structured_delegate:``) passes ``Tensor[]`` as ``const at::ITensorListRef &``
instead of ``at::TensorList``.  They are read once from the IR into this
value and handed to each view explicitly; nothing is ambient.
"""

from __future__ import annotations

import attrs

from schemac.ir.native import NativeFunction


@attrs.frozen(cache_hash=True)
class Conventions:
    const_ref_for_mutable_tensors: bool = False
    ilistref_for_tensor_lists: bool = False

    @classmethod
    def of(cls, fn: NativeFunction) -> Conventions:
        # One of the four values, not a new equal one: every view of every
        # function asks, and the parameter memos (``functools.lru_cache`` keyed
        # by argument and conventions) then compare by identity, not field by field.
        return _ALL[
            fn.use_const_ref_for_mutable_tensors,
            fn.structured or fn.structured_delegate is not None,
        ]


DEFAULT_CONVENTIONS = Conventions()

_ALL: dict[tuple[bool, bool], Conventions] = {
    (const_ref, ilistref): Conventions(const_ref, ilistref)
    for const_ref in (False, True)
    for ilistref in (False, True)
}
_ALL[False, False] = DEFAULT_CONVENTIONS
