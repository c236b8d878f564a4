"""How a schema type crosses the shim's C ABI, and how the C value becomes ATen's again.

Note [The AOTI C ABI]
~~~~~~~~~~~~~~~~~~~~~
A shim takes only C types: tensors and generators as opaque handles, ``bool``
and the enums (``ScalarType``, ``Layout``, ``MemoryFormat``, ``DeviceIndex``)
as ``int32_t``, ``int`` and ``SymInt`` as ``int64_t`` (compiled code has
concrete sizes), ``Scalar`` and ``float`` as ``double``, ``str`` as
``const char*``, a ``Device`` as two ``int32_t`` (type and ``<name>_index_``).
An optional is a pointer to its value (null for ``None``); a list is a
``const`` pointer to its elements plus an ``int64_t <name>_len_``.  Results
come back through ``ret<i>`` pointers, because every shim returns an
``AOTITorchError``.  A type outside this set has no ABI: the operator gets no
shim (as in torchgen, which leaves such operators out of the headers too).

Each lowering also gives the expression that turns the C parameters back into
the value the ATen call takes (the helpers of
``torch/csrc/inductor/aoti_torch/utils.h``).
"""

from __future__ import annotations

import attrs

from schemac.backends.cppmodel import CppParameter
from schemac.ir.schema import Argument, Return
from schemac.ir.types import BaseTy, BaseType, ListType, OptionalType, Type


class NotInAbi(Exception):
    """The type has no C ABI form (see Note [The AOTI C ABI])."""


#: Base type -> (its C type, its ATen C++ type).
_SCALARS: dict[BaseTy, tuple[str, str]] = {
    BaseTy.Tensor: ("AtenTensorHandle", "at::Tensor"),
    BaseTy.bool: ("int32_t", "bool"),
    BaseTy.int: ("int64_t", "int64_t"),
    BaseTy.SymInt: ("int64_t", "c10::SymInt"),
    BaseTy.Scalar: ("double", "c10::Scalar"),
    BaseTy.float: ("double", "double"),
    BaseTy.str: ("const char*", "::std::string_view"),
    BaseTy.DeviceIndex: ("int32_t", "c10::DeviceIndex"),
    BaseTy.Layout: ("int32_t", "c10::Layout"),
    BaseTy.MemoryFormat: ("int32_t", "c10::MemoryFormat"),
    BaseTy.ScalarType: ("int32_t", "c10::ScalarType"),
    BaseTy.Generator: ("AtenGeneratorHandle", "at::Generator"),
}

#: Enums travel as integers and are cast back.
_CAST_BACK = (BaseTy.DeviceIndex, BaseTy.Layout, BaseTy.MemoryFormat, BaseTy.ScalarType)

_TENSOR = "at::Tensor"
_OPTIONAL_TENSOR = "::std::optional<at::Tensor>"
_DEVICE = "c10::Device"
_ARRAY_REF = "c10::ArrayRef<"


@attrs.frozen
class Lowered:
    """One schema argument at the C ABI."""

    params: tuple[CppParameter, ...]
    #: The C++ type the ATen side sees (``c10::ArrayRef<int64_t>``).
    aten_type: str
    #: The expression that rebuilds that value from :attr:`params`.
    expr: str


def lower_argument(arg: Argument) -> Lowered:
    return _lower(arg.type, arg.name, arg.is_write)


def _lower(ty: Type, name: str, is_write: bool) -> Lowered:
    if isinstance(ty, BaseType):
        return _lower_base(ty.name, name, is_write)
    if isinstance(ty, OptionalType):
        return _lower_optional(_lower(ty.elem, name, False))
    if isinstance(ty, ListType):
        return _lower_list(ty, _lower(ty.elem, name, False), is_write)
    raise NotInAbi(str(ty))


def _lower_base(base: BaseTy, name: str, is_write: bool) -> Lowered:
    if base is BaseTy.Device:
        index = f"{name}_index_"
        return Lowered(
            (CppParameter("int32_t", name), CppParameter("int32_t", index)),
            _DEVICE,
            f"c10::Device(static_cast<c10::DeviceType>({name}), "
            f"static_cast<c10::DeviceIndex>({index}))",
        )
    if base not in _SCALARS:
        raise NotInAbi(base.value)
    c_type, aten_type = _SCALARS[base]
    if base is BaseTy.Tensor:
        # A mutated tensor is bound to ``at::Tensor&``: it must be the handle's
        # own tensor, not the temporary resolve_tensor_dispatch_flags returns.
        expr = (
            f"*tensor_handle_to_tensor_pointer({name})"
            if is_write
            else f"resolve_tensor_dispatch_flags({name})"
        )
    elif base is BaseTy.Generator:
        expr = f"*generator_handle_to_generator_pointer({name})"
    elif base in _CAST_BACK:
        expr = f"static_cast<{aten_type}>({name})"
    else:
        expr = name
    return Lowered((CppParameter(c_type, name),), aten_type, expr)


def _lower_optional(elem: Lowered) -> Lowered:
    """The value's first parameter becomes a pointer (a list's length and a
    device's index stay plain: they are read only when the pointer is set)."""
    first, *rest = elem.params
    params = (CppParameter(f"{first.type}*", first.name), *rest)
    names = [p.name for p in elem.params]
    aten_type = f"::std::optional<{elem.aten_type}>"
    if elem.aten_type.startswith(_ARRAY_REF):
        inner = elem.aten_type[len(_ARRAY_REF) : -1]
        expr = f"pointer_to_optional_list<{inner}>({names[0]}, {names[1]})"
    elif elem.aten_type == _DEVICE:
        expr = f"pointer_to_optional_device({names[0]}, {names[1]})"
    elif elem.aten_type == _TENSOR:
        expr = f"resolve_tensor_dispatch_flags({names[0]})"
    else:
        expr = f"pointer_to_optional<{elem.aten_type}>({names[0]})"
    return Lowered(params, aten_type, expr)


def _lower_list(ty: ListType, elem: Lowered, is_write: bool) -> Lowered:
    if len(elem.params) != 1:
        raise NotInAbi(str(ty))  # a list of devices: two values per element
    name = elem.params[0].name
    length = f"{name}_len_"
    params = (
        CppParameter(f"const {elem.params[0].type}*", name),
        CppParameter("int64_t", length),
    )
    if elem.aten_type == "bool":
        # std::vector<bool> has no ArrayRef; a fixed-size bool[N] becomes std::array.
        if ty.size is None:
            raise NotInAbi(str(ty))
        expr = f"pointer_to_list<{ty.size}>({name})"
    elif elem.aten_type == _TENSOR and not is_write:
        expr = f"resolve_tensor_list_dispatch_flags({name}, {length})"
    elif elem.aten_type == _OPTIONAL_TENSOR:
        resolved = f"resolve_tensor_list_dispatch_flags({name}, {length})"
        expr = f"c10::List<{_OPTIONAL_TENSOR}>(c10::ArrayRef<{_OPTIONAL_TENSOR}>({resolved}))"
    else:
        expr = f"pointer_to_list<{elem.aten_type}>({name}, {length})"
    return Lowered(params, f"{_ARRAY_REF}{elem.aten_type}>", expr)


@attrs.frozen
class LoweredReturn:
    param: CppParameter
    #: How the ATen result ``value`` is stored through the pointer's target.
    convert: str


def lower_return(ret: Return, index: int) -> LoweredReturn:
    """``ret<index>``: a pointer to the C form of a single (non-list) result."""
    ty = ret.type
    if not isinstance(ty, BaseType) or ty.name not in _SCALARS:
        raise NotInAbi(str(ty))
    c_type = _SCALARS[ty.name][0]
    if ty.name is BaseTy.Tensor:
        convert = "new_tensor_handle(std::move({value}))"
    elif ty.name is BaseTy.SymInt:
        convert = "{value}.expect_int()"
    elif ty.name is BaseTy.Scalar:
        convert = "{value}.toDouble()"
    else:
        convert = "{value}"
    return LoweredReturn(CppParameter(f"{c_type}*", f"ret{index}"), convert)
