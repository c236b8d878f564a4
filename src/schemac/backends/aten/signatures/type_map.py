"""Schema types -> C++ types, for each flavour of C++ API.

Note [SymInt in C++ signatures]
    A ``SymInt`` (or ``SymInt[]``) argument has two C++ spellings: the
    symbolic one (``c10::SymInt``, ``c10::SymIntArrayRef``) used by the
    dispatcher and by ``*_symint`` C++ overloads, and the concrete one
    (``int64_t``, ``at::IntArrayRef``) of the plain C++ API and of kernels
    that do not opt into symbolic shapes.  Every translation below takes a
    ``symint`` flag choosing between them.  Return types are always symbolic.

The plain C++ API and the dispatcher share one translation
(:func:`argument_type`); native kernels differ only for optional tensors
(:func:`native_argument_type`); structured kernels use cheaper non-owning
reference types throughout (:func:`structured_argument_type`).
"""

from __future__ import annotations

import functools

from schemac.backends.aten.signatures import cxx_types as C
from schemac.backends.aten.signatures.conventions import Conventions
from schemac.ir.schema import Return
from schemac.ir.types import BaseTy, BaseType, ListType, OptionalType, Type

_VALUE_TYPES: dict[BaseTy, C.CType] = {
    BaseTy.int: C.INT64,
    BaseTy.float: C.DOUBLE,
    BaseTy.bool: C.BOOL,
    BaseTy.str: C.STRING,
    BaseTy.Generator: C.Named("at::Generator"),
    BaseTy.ScalarType: C.SCALAR_TYPE,
    BaseTy.Dimname: C.Named("at::Dimname"),  # releases with named tensors (2.12 and older)
    BaseTy.DimVector: C.Named("at::DimVector"),
    BaseTy.Layout: C.LAYOUT,
    BaseTy.Device: C.DEVICE,
    BaseTy.DeviceIndex: C.Named("at::DeviceIndex"),
    BaseTy.MemoryFormat: C.Named("at::MemoryFormat"),
    BaseTy.QScheme: C.Named("at::QScheme"),
    BaseTy.Storage: C.Named("at::Storage"),
    BaseTy.Stream: C.Named("at::Stream"),
    BaseTy.SymBool: C.SYMBOOL,
    BaseTy.GraphModule: C.Named("at::GraphModule"),
}

_TENSOR = BaseType(BaseTy.Tensor)
_SCALAR = BaseType(BaseTy.Scalar)
_INT = BaseType(BaseTy.int)
_SYMINT = BaseType(BaseTy.SymInt)
_DIMNAME = BaseType(BaseTy.Dimname)
_DIMNAME_LIST = C.Named("at::DimnameList")


class UnsupportedType(Exception):
    """A schema type with no C++ spelling in this position (a compiler bug or
    an input the earlier passes should have rejected)."""


def value_type(ty: Type, *, symint: bool) -> C.CType | None:
    """The C++ type of a schema type passed by value, or None if it is not one.

    Tensors and Scalars are passed by reference; lists are views (``ArrayRef``)
    except fixed-size ``bool[N]``, which becomes ``::std::array<bool,N>``.
    """
    if isinstance(ty, BaseType):
        if ty.name in (BaseTy.Tensor, BaseTy.Scalar):
            return None
        if ty.name is BaseTy.SymInt:
            return C.SYMINT if symint else C.INT64
        return _VALUE_TYPES[ty.name]
    if isinstance(ty, OptionalType):
        elem = value_type(ty.elem, symint=symint)
        return None if elem is None else C.Optional(elem)
    if isinstance(ty, ListType):
        if ty.elem == BaseType(BaseTy.bool):
            if ty.size is None:
                raise UnsupportedType(f"'{ty}' needs a fixed size")
            return C.Array(C.BOOL, ty.size)
        return None
    raise UnsupportedType(f"no C++ value type for '{ty}'")


def _tensor_ref(mutable: bool, conv: Conventions) -> C.CType:
    if mutable and not conv.const_ref_for_mutable_tensors:
        return C.MutRef(C.TENSOR)
    return C.ConstRef(C.TENSOR)


def argument_type(ty: Type, *, mutable: bool, symint: bool, conv: Conventions) -> C.CType:
    """The type of an argument in the C++ API (``at::``) and the dispatcher."""
    value = value_type(ty, symint=symint)
    if value is not None:
        return value
    if ty == _TENSOR:
        return _tensor_ref(mutable, conv)
    if ty == _SCALAR:
        return C.ConstRef(C.SCALAR)
    if isinstance(ty, OptionalType):
        return _optional_argument_type(ty, mutable=mutable, symint=symint, conv=conv)
    if isinstance(ty, ListType):
        return _list_argument_type(ty, mutable=mutable, symint=symint, conv=conv)
    raise UnsupportedType(f"no C++ argument type for '{ty}'")


def _optional_argument_type(
    ty: OptionalType, *, mutable: bool, symint: bool, conv: Conventions
) -> C.CType:
    elem = ty.elem
    if elem == _TENSOR:
        # A mutable optional tensor is passed as a plain tensor reference (an
        # undefined tensor stands for None); PyTorch's C++ API has always done so.
        if mutable and not conv.const_ref_for_mutable_tensors:
            return C.MutRef(C.TENSOR)
        return C.ConstRef(C.Optional(C.TENSOR))
    if elem == _SCALAR:
        return C.ConstRef(C.Optional(C.SCALAR))
    if isinstance(elem, ListType) and elem.elem == _INT:
        return C.OPTIONAL_INT_ARRAY_REF
    if isinstance(elem, ListType) and elem.elem == _SYMINT:
        return C.OPTIONAL_SYMINT_ARRAY_REF if symint else C.OPTIONAL_INT_ARRAY_REF
    return C.Optional(argument_type(elem, mutable=mutable, symint=symint, conv=conv))


def _list_argument_type(ty: ListType, *, mutable: bool, symint: bool, conv: Conventions) -> C.CType:
    elem = ty.elem
    if elem == _INT:
        return C.INT_ARRAY_REF
    if elem == _SYMINT:
        return C.SYMINT_ARRAY_REF if symint else C.INT_ARRAY_REF
    if elem == _TENSOR:
        return C.ConstRef(C.I_TENSOR_LIST_REF) if conv.ilistref_for_tensor_lists else C.TENSOR_LIST
    if elem == _SCALAR:
        return C.ArrayRef(C.SCALAR)
    if elem == OptionalType(_TENSOR):
        return C.ConstRef(C.List(C.Optional(C.TENSOR)))
    if elem == _DIMNAME:
        return _DIMNAME_LIST
    return C.ArrayRef(argument_type(elem, mutable=mutable, symint=symint, conv=conv))


def native_argument_type(ty: Type, *, mutable: bool, symint: bool, conv: Conventions) -> C.CType:
    """The type of an argument of a native kernel (``at::native::``).

    Kernels see a mutable optional tensor as what it is, a reference to an
    optional, unlike the C++ API (see :func:`_optional_argument_type`).
    """
    if ty == OptionalType(_TENSOR):
        if mutable and not conv.const_ref_for_mutable_tensors:
            return C.MutRef(C.Optional(C.TENSOR))
        return C.ConstRef(C.Optional(C.TENSOR))
    return argument_type(ty, mutable=mutable, symint=symint, conv=conv)


def structured_argument_type(ty: Type) -> C.CType:
    """The type of an argument of a structured kernel's ``meta()`` / ``impl()``.

    Structured kernels never take symbolic sizes and take optionals and
    tensor lists through non-owning references; mutable tensors (the outputs)
    are ``const at::Tensor &`` because the kernel writes their data only.
    """
    value = value_type(ty, symint=False)
    if value is not None:
        return value
    if ty == _TENSOR:
        return C.ConstRef(C.TENSOR)
    if ty == _SCALAR:
        return C.ConstRef(C.SCALAR)
    if isinstance(ty, OptionalType):
        if ty.elem == _TENSOR:
            return C.OPTIONAL_TENSOR_REF
        if ty.elem == _SCALAR:
            return C.OPTIONAL_SCALAR_REF
        if isinstance(ty.elem, ListType) and ty.elem.elem == _INT:
            return C.OPTIONAL_INT_ARRAY_REF
        return C.Optional(structured_argument_type(ty.elem))
    if isinstance(ty, ListType):
        if ty.elem == _TENSOR:
            return C.ConstRef(C.I_TENSOR_LIST_REF)
        if ty.elem == OptionalType(_TENSOR):
            return C.I_OPT_TENSOR_LIST_REF
        if ty.elem == _INT:
            return C.INT_ARRAY_REF
        if ty.elem == _DIMNAME:
            return _DIMNAME_LIST
        return C.ArrayRef(structured_argument_type(ty.elem))
    raise UnsupportedType(f"no structured-kernel type for '{ty}'")


# -- returns -------------------------------------------------------------------


def return_type(ret: Return, conv: Conventions) -> C.CType:
    """The C++ type of one return.  See Note [SymInt in C++ signatures]."""
    return _return_type(ret.type, mutable=ret.is_write, conv=conv)


def _return_type(ty: Type, *, mutable: bool, conv: Conventions) -> C.CType:
    value = value_type(ty, symint=True)
    if value is not None:
        return value
    if ty == _TENSOR:
        # Fresh tensors are returned by value; a mutated argument by reference.
        if not mutable:
            return C.TENSOR
        return C.ConstRef(C.TENSOR) if conv.const_ref_for_mutable_tensors else C.MutRef(C.TENSOR)
    if ty == _SCALAR:
        return C.SCALAR
    if isinstance(ty, ListType) and not mutable and ty.size is None:
        return C.Vector(_return_type(ty.elem, mutable=False, conv=conv))
    if isinstance(ty, OptionalType) and ty.elem == _TENSOR:
        return C.Optional(_return_type(ty.elem, mutable=mutable, conv=conv))
    raise UnsupportedType(f"no C++ return type for '{ty}'")


# Every view of a function maps the same returns (dispatcher, native, C++ API),
# and most functions return one of a few shapes (``Tensor``, ``Tensor(a!)``):
# the type is a pure function of the returns and the conventions, and frozen.
@functools.lru_cache(maxsize=4096)
def returns_type(returns: tuple[Return, ...], conv: Conventions) -> C.CType:
    if not returns:
        return C.VOID
    if len(returns) == 1:
        return return_type(returns[0], conv)
    return C.Tuple(tuple(return_type(r, conv) for r in returns))
