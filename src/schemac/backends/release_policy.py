"""What the functionalization and vmap backends ask of the target release.

Almost everything those backends write follows from the IR: view groups,
variant groups, which arguments an operator writes, its tags and dispatch
table.  A few operators are exceptions PyTorch handles by hand, and torchgen
keeps them in its code; schemac keeps them in the release profile (Note
[Release profiles], lists ``functionalization_*`` and
``vmap_non_tensor_return_ops``, extracted by tools/extract_profile.py).  A
:class:`ReleasePolicy` is the typed reading of those lists, made once per
emit, so the emitters ask a named question and never spell an operator name.
"""

from __future__ import annotations

import re

import attrs

from schemac.ir.names import OperatorName
from schemac.ir.schema import FunctionSchema
from schemac.profiles import ReleaseProfile, reference_profile

_DECLARATION = re.compile(r"(\w+)\((.*)\)")


@attrs.frozen
class InverseDeclaration:
    """A view inverse PyTorch declares by hand (for a CompositeImplicit view it calls).

    Parameters are ``(C++ type, name)`` pairs after the three every inverse
    takes (``base``, ``mutated_view``, ``inverse_return_mode``).
    """

    name: str
    params: tuple[tuple[str, str], ...]

    @classmethod
    def parse(cls, text: str) -> InverseDeclaration:
        """From the profile's ``name(type arg, ...)``."""
        match = _DECLARATION.fullmatch(text)
        if match is None:
            raise ValueError(f"not an inverse declaration: {text!r}")
        params = [p.rsplit(" ", 1) for p in match.group(2).split(", ") if p]
        return cls(match.group(1), tuple((ty, name) for ty, name in params))


@attrs.frozen
class ReleasePolicy:
    #: Operators whose functionalization PyTorch writes by hand: a variant family
    #: containing one, or a view group whose view is one, gets no generated
    #: kernel or registration (a view's ViewMeta class and inverse still are).
    hand_written_functionalization: frozenset[str]
    #: out= operators whose functional call keeps the out tensor's dtype when
    #: ``dtype`` is not given (eager computes in the out dtype).
    out_dtype_preserving_ops: frozenset[str]
    #: Views whose ViewMeta says ``is_as_strided``.
    as_strided_views: frozenset[str]
    #: Inverses of CompositeImplicit views that FunctionalInverses.h declares
    #: anyway, because PyTorch's own inverses call them.
    hand_declared_inverses: tuple[InverseDeclaration, ...]
    #: Operators (unambiguous names) that get vmap plumbing although a return
    #: is not tensor-like (their batch rules return SymInts next to the tensors).
    vmap_non_tensor_return_ops: frozenset[str]
    #: ViewMeta members hold Tensor and Scalar arguments by value (2.14 on).
    view_meta_owns_tensors: bool = False
    #: Multi-output views whose ViewMeta rebuilds only its own output, and how
    #: (``slice`` or ``select``): ``((operator, kind), ...)``.
    single_output_replay: tuple[tuple[str, str], ...] = ()

    @classmethod
    def of(cls, profile: ReleaseProfile) -> ReleasePolicy:
        return cls(
            hand_written_functionalization=profile.names("functionalization_hand_written"),
            out_dtype_preserving_ops=profile.names("functionalization_out_dtype_preserving"),
            as_strided_views=profile.names("functionalization_as_strided_views"),
            hand_declared_inverses=tuple(
                InverseDeclaration.parse(text)
                for text in profile.ordered("functionalization_hand_declared_inverses")
            ),
            vmap_non_tensor_return_ops=profile.names("vmap_non_tensor_return_ops"),
            view_meta_owns_tensors=profile.has("view_meta_owns_tensors"),
            single_output_replay=tuple(
                sorted(profile.table("view_meta_single_output_replay").items())
            ),
        )

    def replay_kind(self, func: FunctionSchema) -> str | None:
        """How a multi-output view's ViewMeta rebuilds one output, if the release says."""
        return dict(self.single_output_replay).get(str(func.name))

    def is_out_dtype_preserving(self, func: FunctionSchema) -> bool:
        return str(func.name) in self.out_dtype_preserving_ops

    def hand_writes(self, names: frozenset[OperatorName]) -> bool:
        return any(str(name) in self.hand_written_functionalization for name in names)


def default_policy() -> ReleasePolicy:
    """The policy of the reference release (what library callers get by default)."""
    return ReleasePolicy.of(reference_profile())
