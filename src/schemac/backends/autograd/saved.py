"""How a backward node stores what it saved: the C++ member of each saved value.

A node outlives the call that built it, so it must own what it keeps: a
``c10::SymIntArrayRef`` argument is stored as ``std::vector<c10::SymInt>``, a
string view as ``std::string``, and tensors as ``SavedVariable`` (which
records the version counter, so modifying a saved tensor in place is caught
at backward time).  Lists of tensors become ``std::vector<SavedVariable>``
with a ``released`` flag, so using a node's saved lists after
``release_variables`` fails loudly instead of reading empty lists.

The choice is made from the schema type (or the saved property) here, once;
the Functions.h/.cpp templates only print the resulting :class:`SavedMember`.
"""

from __future__ import annotations

import enum

import attrs

from schemac.backends.aten.signatures import cxx_types as C
from schemac.backends.aten.signatures.conventions import Conventions
from schemac.backends.aten.signatures.type_map import argument_type, return_type
from schemac.backends.lazy import cached
from schemac.ir.autograd import SavedAttribute, SavedProperty
from schemac.ir.schema import Return
from schemac.ir.types import BaseTy, BaseType, ListType, OptionalType, Type


class Storage(enum.Enum):
    """How a saved value is kept, unpacked and released."""

    #: One tensor as a ``SavedVariable`` (``self_``).
    variable = "variable"
    #: ``Tensor[]`` as ``std::vector<SavedVariable>`` unpacked to a tensor vector.
    variable_list = "variable_list"
    #: ``Tensor?[]`` as ``std::vector<SavedVariable>`` unpacked to a ``c10::List``.
    optional_variable_list = "optional_variable_list"
    #: ``Scalar[]`` as ``std::vector<at::Scalar>`` (cleared on release).
    scalar_list = "scalar_list"
    #: Any other value, stored as its owning C++ type.
    value = "value"


#: The owning type each derived property is stored as.
_PROPERTY_TYPES: dict[SavedProperty, str] = {
    SavedProperty.sym_sizes: "std::vector<c10::SymInt>",
    SavedProperty.sym_strides: "std::vector<c10::SymInt>",
    SavedProperty.sym_sizes_opt: "c10::OptionalArray<c10::SymInt>",
    SavedProperty.sym_blocksize_opt: "c10::OptionalArray<c10::SymInt>",
    SavedProperty.options: "at::TensorOptions",
    SavedProperty.info: "torch::autograd::generated::TypeAndSize",
    SavedProperty.sym_argsize: "c10::SymInt",
    SavedProperty.numel: "int64_t",
    SavedProperty.sym_numel: "c10::SymInt",
    SavedProperty.args_sizes: "::std::vector<::std::vector<int64_t>>",
    SavedProperty.args_sizes_symint: "::std::vector<::std::vector<c10::SymInt>>",
    SavedProperty.args_scalartypes: "::std::vector<at::ScalarType>",
    SavedProperty.geometry: "at::TensorGeometry",
    SavedProperty.scalar_type: "at::ScalarType",
    SavedProperty.dim: "int64_t",
    SavedProperty.layout: "at::Layout",
    SavedProperty.conjugate: "bool",
}

_TENSOR = BaseType(BaseTy.Tensor)
_OPTIONAL_TENSOR = OptionalType(_TENSOR)
_SCALAR = BaseType(BaseTy.Scalar)
_TENSOR_LIST = ListType(_TENSOR)
_OPTIONAL_TENSOR_LIST = ListType(_OPTIONAL_TENSOR)
_SCALAR_LIST = ListType(_SCALAR)

#: Schema types whose C++ API type is a non-owning view, and the owning type kept.
_OWNING: dict[Type, str] = {
    ListType(BaseType(BaseTy.int)): "std::vector<int64_t>",
    ListType(BaseType(BaseTy.SymInt)): "std::vector<c10::SymInt>",
    OptionalType(ListType(BaseType(BaseTy.int))): "c10::OptionalArray<int64_t>",
    OptionalType(ListType(BaseType(BaseTy.SymInt))): "c10::OptionalArray<c10::SymInt>",
    OptionalType(ListType(BaseType(BaseTy.float))): "c10::OptionalArray<double>",
    BaseType(BaseTy.str): "std::string",
    OptionalType(BaseType(BaseTy.str)): "std::optional<std::string>",
    ListType(BaseType(BaseTy.Scalar)): "std::vector<at::Scalar>",
}


# Not slotted, so that its cached properties are instance-dict hits (see OperatorPlan).
@attrs.frozen(slots=False)
class SavedMember:
    """One saved value as the node declares, releases, unpacks and visits it."""

    #: The saved value's name in formulas (``self``, ``self_sym_sizes``).
    name: str
    #: The C++ type of the data member.
    cpp_type: str
    storage: Storage
    is_output: bool
    #: ``= 0`` style initialiser of the member, or "".
    initializer: str = ""
    #: How the owning node points at itself (an output is unpacked against it).
    this: str = "getptr()"

    @cached
    def is_non_owning(self) -> bool:
        """The stored type would point into the caller's memory (a lowering error)."""
        if self.storage is not Storage.value:
            return False
        text = self.cpp_type
        return any(marker in text for marker in ("Ref", "View", "view", "&", "*"))

    @cached
    def member(self) -> str:
        """The data member's name: SavedVariables carry a trailing ``_``."""
        return f"{self.name}_" if self.uses_saved_variable else self.name

    @cached
    def uses_saved_variable(self) -> bool:
        return self.storage in (
            Storage.variable,
            Storage.variable_list,
            Storage.optional_variable_list,
        )

    @cached
    def has_released_flag(self) -> bool:
        return self.storage is not Storage.variable and self.storage is not Storage.value

    @cached
    def declarations(self) -> tuple[str, ...]:
        init = f" = {self.initializer}" if self.initializer else ""
        lines = [f"{self.cpp_type} {self.member}{init};"]
        if self.has_released_flag:
            lines.append(f"bool {self.name}_released_ = false;")
        return tuple(lines)

    @cached
    def release(self) -> tuple[str, ...]:
        if self.storage is Storage.variable:
            return (f"{self.member}.reset_data();",)
        if self.storage is Storage.scalar_list:
            return (f"{self.member}.clear();",)
        if self.has_released_flag:
            return (f"{self.member}.clear();", f"{self.name}_released_ = true;")
        return ()

    @cached
    def released_check(self) -> str | None:
        """The guard against a second backward through released lists."""
        if self.storage in (Storage.variable_list, Storage.optional_variable_list):
            return f"TORCH_CHECK(!{self.name}_released_, ERR_BACKWARD_TWICE);"
        return None

    @cached
    def unpack(self) -> str | None:
        """How ``apply`` gets the value back out of a SavedVariable, if it must."""
        owner = self.this if self.is_output else ""
        if self.storage is Storage.variable:
            return f"auto {self.name} = {self.member}.unpack({owner});"
        if self.storage is Storage.variable_list:
            return f"auto {self.name} = unpack_list({self.member}, {owner or 'nullptr'});"
        if self.storage is Storage.optional_variable_list:
            return f"auto {self.name} = unpack_opt_list({self.member});"
        return None

    @cached
    def unpacked_type(self) -> str:
        """The type the apply function receives the value as (by reference)."""
        if self.storage is Storage.variable:
            return "Tensor"
        if self.storage is Storage.variable_list:
            return "std::vector<Tensor>"
        if self.storage is Storage.optional_variable_list:
            return "torch::List<std::optional<Tensor>>"
        return self.cpp_type

    @cached
    def collect(self) -> str:
        """The compiled-autograd ``args.collect`` call for this member."""
        if self.uses_saved_variable:
            return f"args.collect({self.member}, {'true' if self.is_output else 'false'});"
        return f"args.collect({self.member});"


def _without_sizes(ty: Type) -> Type:
    """``int[2]`` is stored like ``int[]``: the size is a schema check, not a type."""
    if isinstance(ty, ListType):
        return ListType(_without_sizes(ty.elem))
    if isinstance(ty, OptionalType):
        return OptionalType(_without_sizes(ty.elem))
    return ty


def _value_type(ty: Type | None, *, is_output: bool, conv: Conventions) -> str:
    if ty is None:
        return str(C.TENSOR_OPTIONS)
    owning = _OWNING.get(_without_sizes(ty))
    if owning is not None:
        return owning
    if is_output:
        return str(C.strip_reference(return_type(Return(None, ty), conv)))
    ctype = argument_type(ty, mutable=False, symint=True, conv=conv)
    return str(C.strip_reference(ctype))


#: How a saved value of each type is kept, the same for inputs and outputs.
#: A dict, not a chain of ``==`` tests: a type's hash is cached, and each
#: ``==`` is a Python-level attrs call (~4,400 saved values for torch).
_STORAGE_BY_TYPE: dict[Type | None, Storage] = {
    _TENSOR: Storage.variable,
    _OPTIONAL_TENSOR: Storage.variable,
    _TENSOR_LIST: Storage.variable_list,
    _OPTIONAL_TENSOR_LIST: Storage.optional_variable_list,
    _SCALAR_LIST: Storage.scalar_list,
}


def _storage_of(ty: Type | None, *, is_output: bool) -> Storage:
    storage = _STORAGE_BY_TYPE.get(ty)
    if storage is not None:
        return storage
    if is_output and ty == _SCALAR:
        # A Scalar result is a 0-dim tensor on the device: saved as a tensor.
        return Storage.variable
    return Storage.value


def saved_member(saved: SavedAttribute, *, is_output: bool, conv: Conventions) -> SavedMember:
    if saved.prop is not SavedProperty.value:
        cpp = _PROPERTY_TYPES[saved.prop]
        init = "0" if cpp == "int64_t" else ""
        return SavedMember(saved.name, cpp, Storage.value, is_output, init)
    storage = _storage_of(saved.source_type, is_output=is_output)
    if storage is Storage.variable:
        return SavedMember(saved.name, "SavedVariable", storage, is_output)
    if storage in (Storage.variable_list, Storage.optional_variable_list):
        return SavedMember(saved.name, "std::vector<SavedVariable>", storage, is_output)
    cpp = _value_type(saved.source_type, is_output=is_output, conv=conv)
    init = "0" if cpp == "int64_t" else ""
    return SavedMember(saved.name, cpp, storage, is_output, init)
