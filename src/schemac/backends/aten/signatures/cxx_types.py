"""A tiny model of the C++ types that appear in ATen signatures.

Every signature view produces parameters whose types are values of this
model rather than strings, so an emitter can ask structural questions ("is
this a mutable reference?", "what is under the optional?") without parsing
C++.  ``str()`` of a type is its exact spelling in generated code; the
spelling (spaces before ``&``, ``::std::`` prefixes, no space after commas in
template argument lists) is the one ATen's checked-in headers use, so that
generated declarations compare textually with PyTorch's.
"""

from __future__ import annotations

import attrs


# Signatures print the same few hundred types hundreds of thousands of times,
# so each compound type spells itself once, when it is made (types are frozen).
def _spelling_field() -> str:
    spelling: str = attrs.field(init=False, default="", eq=False, repr=False)
    return spelling


@attrs.frozen
class Named:
    """A type spelled by name: ``at::Tensor``, ``int64_t``, ``c10::SymInt``."""

    spelling: str

    def __str__(self) -> str:
        return self.spelling


@attrs.frozen
class ConstRef:
    elem: CType

    _spelling: str = _spelling_field()

    def __attrs_post_init__(self) -> None:
        object.__setattr__(self, "_spelling", f"const {self.elem} &")

    def __str__(self) -> str:
        return self._spelling


@attrs.frozen
class MutRef:
    elem: CType

    _spelling: str = _spelling_field()

    def __attrs_post_init__(self) -> None:
        object.__setattr__(self, "_spelling", f"{self.elem} &")

    def __str__(self) -> str:
        return self._spelling


@attrs.frozen
class Optional:
    elem: CType

    _spelling: str = _spelling_field()

    def __attrs_post_init__(self) -> None:
        object.__setattr__(self, "_spelling", f"::std::optional<{self.elem}>")

    def __str__(self) -> str:
        return self._spelling


@attrs.frozen
class ArrayRef:
    elem: CType

    _spelling: str = _spelling_field()

    def __attrs_post_init__(self) -> None:
        object.__setattr__(self, "_spelling", f"at::ArrayRef<{self.elem}>")

    def __str__(self) -> str:
        return self._spelling


@attrs.frozen
class List:
    """``c10::List<T>``: the boxed, refcounted list (``Tensor?[]``)."""

    elem: CType

    _spelling: str = _spelling_field()

    def __attrs_post_init__(self) -> None:
        object.__setattr__(self, "_spelling", f"c10::List<{self.elem}>")

    def __str__(self) -> str:
        return self._spelling


@attrs.frozen
class Vector:
    elem: CType

    _spelling: str = _spelling_field()

    def __attrs_post_init__(self) -> None:
        object.__setattr__(self, "_spelling", f"::std::vector<{self.elem}>")

    def __str__(self) -> str:
        return self._spelling


@attrs.frozen
class Array:
    elem: CType
    size: int

    _spelling: str = _spelling_field()

    def __attrs_post_init__(self) -> None:
        object.__setattr__(self, "_spelling", f"::std::array<{self.elem},{self.size}>")

    def __str__(self) -> str:
        return self._spelling


@attrs.frozen
class Tuple:
    elems: tuple[CType, ...]

    _spelling: str = _spelling_field()

    def __attrs_post_init__(self) -> None:
        object.__setattr__(
            self, "_spelling", "::std::tuple<" + ",".join(str(e) for e in self.elems) + ">"
        )

    def __str__(self) -> str:
        return self._spelling


CType = Named | ConstRef | MutRef | Optional | ArrayRef | List | Vector | Array | Tuple


def strip_reference(ty: CType) -> CType:
    """The value type under a ``const T &`` or ``T &``."""
    return ty.elem if isinstance(ty, (ConstRef, MutRef)) else ty


# The named types the schema language maps onto.  One definition each, so a
# spelling change (say, ``c10::string_view`` to ``std::string_view``) is one edit.
VOID = Named("void")
BOOL = Named("bool")
INT64 = Named("int64_t")
DOUBLE = Named("double")
TENSOR = Named("at::Tensor")
SCALAR = Named("at::Scalar")
SYMINT = Named("c10::SymInt")
SYMBOOL = Named("c10::SymBool")
STRING = Named("c10::string_view")
SCALAR_TYPE = Named("at::ScalarType")
LAYOUT = Named("at::Layout")
DEVICE = Named("at::Device")
TENSOR_OPTIONS = Named("at::TensorOptions")
INT_ARRAY_REF = Named("at::IntArrayRef")
SYMINT_ARRAY_REF = Named("c10::SymIntArrayRef")
OPTIONAL_INT_ARRAY_REF = Named("at::OptionalIntArrayRef")
OPTIONAL_SYMINT_ARRAY_REF = Named("at::OptionalSymIntArrayRef")
TENSOR_LIST = Named("at::TensorList")
I_TENSOR_LIST_REF = Named("at::ITensorListRef")
I_OPT_TENSOR_LIST_REF = Named("at::IOptTensorListRef")
OPTIONAL_TENSOR_REF = Named("at::OptionalTensorRef")
OPTIONAL_SCALAR_REF = Named("at::OptionalScalarRef")
DISPATCH_KEY_SET = Named("c10::DispatchKeySet")


@attrs.frozen
class Param:
    """One C++ parameter: its type, name and (for declarations) default.

    ``source`` names the schema argument the parameter comes from (for the
    gathered ``options`` parameter, ``"dtype,layout,device,pin_memory"``), so
    emitters that translate between views can match parameters by origin.
    """

    type: CType
    name: str
    default: str | None = None
    source: str = ""

    # Spelled once, when made, like the compound types: a parameter is shared
    # by the signatures of many operators (``cpp_api._param`` is memoised), and
    # the headers print ~80,000 parameter declarations from a few thousand.
    _decl: str = _spelling_field()
    _defn: str = _spelling_field()

    def __attrs_post_init__(self) -> None:
        defn = f"{self.type} {self.name}"
        object.__setattr__(self, "_defn", defn)
        object.__setattr__(
            self, "_decl", defn if self.default is None else f"{defn}={self.default}"
        )

    def decl(self) -> str:
        return self._decl

    def defn(self) -> str:
        return self._defn

    def without_default(self) -> Param:
        if self.default is None:
            # Frozen, so the parameter itself (most have no default): no new
            # object and no second spelling of the same text.
            return self
        # Direct construction: attrs.evolve introspects the fields on every call.
        return Param(self.type, self.name, None, self.source)
