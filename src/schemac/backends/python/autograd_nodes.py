"""Python access to backward nodes: ``y.grad_fn._saved_self`` and friends.

Every backward node class of derivatives.yaml (``AddmmBackward0``) becomes a
Python type in ``torch._C._functions``, with a read-only property per saved
variable: ``_saved_<name>`` gives the value, and for saved tensors
``_raw_saved_<name>`` the ``SavedVariable`` itself.  Which getter a saved
variable gets depends on the C++ type the node stores it as, which follows
from its schema type (via the ATen C++ API view) or from the saved property
(``self_sym_sizes`` is a ``SymIntArrayRef``).  Types without a Python form
(``ScalarType``, ``TensorOptions``, ``TensorGeometry``...) get no property.

The nodes listed are those of derivatives.yaml entries, including the
``*_copy`` twins of view operators; the per-tensor nodes PyTorch synthesises
for ``_foreach_*`` operators are not exposed to Python (PyTorch's
tools/autograd/gen_autograd_functions.py reads only the YAML's infos).
"""

from __future__ import annotations

import enum

import attrs

from schemac.backends.aten.signatures import cxx_types as C
from schemac.backends.aten.signatures.conventions import DEFAULT_CONVENTIONS, Conventions
from schemac.backends.aten.signatures.type_map import argument_type, return_type
from schemac.ir.autograd import DifferentiabilityInfo, SavedAttribute, SavedProperty
from schemac.ir.module import Module
from schemac.ir.native import NativeFunction
from schemac.ir.schema import Return
from schemac.ir.types import Type


class Getter(enum.Enum):
    """How a property reads the stored value; values name the template's def."""

    saved_variable = "saved_variable"
    saved_variable_list = "saved_variable_list"
    int_list = "int_list"
    symint_list = "symint_list"
    optional_int_list = "optional_int_list"
    optional_symint_list = "optional_symint_list"
    optional_double_list = "optional_double_list"
    int64 = "int64"
    optional_int64 = "optional_int64"
    symint = "symint"
    optional_symint = "optional_symint"
    double = "double"
    optional_double = "optional_double"
    boolean = "boolean"
    scalar = "scalar"
    optional_scalar = "optional_scalar"
    string = "string"
    optional_string = "optional_string"
    scalar_list = "scalar_list"


#: Stored C++ type (as the C++ API spells it) -> getter.  Tensors are kept as
#: SavedVariable (so they can be unpacked with version checks), lists of them
#: as std::vector<SavedVariable>.
_GETTERS: dict[str, Getter] = {
    "at::Tensor": Getter.saved_variable,
    "::std::optional<at::Tensor>": Getter.saved_variable,
    "at::TensorList": Getter.saved_variable_list,
    "at::ITensorListRef": Getter.saved_variable_list,
    "::std::vector<at::Tensor>": Getter.saved_variable_list,
    "c10::List<::std::optional<at::Tensor>>": Getter.saved_variable_list,
    "at::IntArrayRef": Getter.int_list,
    "c10::SymIntArrayRef": Getter.symint_list,
    "at::OptionalIntArrayRef": Getter.optional_int_list,
    "::std::optional<at::IntArrayRef>": Getter.optional_int_list,
    "at::OptionalSymIntArrayRef": Getter.optional_symint_list,
    "::std::optional<c10::SymIntArrayRef>": Getter.optional_symint_list,
    "::std::optional<at::ArrayRef<double>>": Getter.optional_double_list,
    "int64_t": Getter.int64,
    "::std::optional<int64_t>": Getter.optional_int64,
    "c10::SymInt": Getter.symint,
    "::std::optional<c10::SymInt>": Getter.optional_symint,
    "double": Getter.double,
    "::std::optional<double>": Getter.optional_double,
    "bool": Getter.boolean,
    "at::Scalar": Getter.scalar,
    "::std::optional<at::Scalar>": Getter.optional_scalar,
    "c10::string_view": Getter.string,
    "::std::optional<c10::string_view>": Getter.optional_string,
    "at::ArrayRef<at::Scalar>": Getter.scalar_list,
}

#: The C++ type each derived property is stored as (PyTorch's load_derivatives).
_PROPERTY_TYPES: dict[SavedProperty, str] = {
    SavedProperty.sym_sizes: "c10::SymIntArrayRef",
    SavedProperty.sym_sizes_opt: "::std::optional<c10::SymIntArrayRef>",
    SavedProperty.sym_blocksize_opt: "::std::optional<c10::SymIntArrayRef>",
    SavedProperty.options: "at::TensorOptions",
    SavedProperty.info: "TypeAndSize",
    SavedProperty.sym_argsize: "c10::SymInt",
    SavedProperty.numel: "int64_t",
    SavedProperty.sym_numel: "c10::SymInt",
    SavedProperty.args_sizes: "::std::vector<::std::vector<int64_t>>",
    SavedProperty.args_sizes_symint: "::std::vector<::std::vector<c10::SymInt>>",
    SavedProperty.args_scalartypes: "::std::vector<at::ScalarType>",
    SavedProperty.geometry: "TensorGeometry",
    SavedProperty.scalar_type: "at::ScalarType",
    SavedProperty.dim: "int64_t",
    SavedProperty.sym_strides: "c10::SymIntArrayRef",
    SavedProperty.layout: "at::Layout",
    SavedProperty.conjugate: "bool",
}


@attrs.frozen
class NodeProperty:
    """One ``_saved_<name>`` property (and ``_raw_saved_<name>`` for saved tensors)."""

    name: str
    getter: Getter

    @property
    def has_raw(self) -> bool:
        return self.getter in (Getter.saved_variable, Getter.saved_variable_list)

    @property
    def member(self) -> str:
        """The node's data member: SavedVariables carry a trailing underscore."""
        return f"{self.name}_" if self.has_raw else self.name


@attrs.frozen
class NodeView:
    #: The C++ node class, also the Python type's name (``AddmmBackward0``).
    op: str
    #: Shard key: the derivatives.yaml entry's base name.
    key: str
    properties: tuple[NodeProperty, ...]


def _stored_type(saved: SavedAttribute, *, output: bool, conv: Conventions) -> str:
    if saved.prop is not SavedProperty.value:
        return _PROPERTY_TYPES[saved.prop]
    if saved.source_type is None:
        return str(C.TENSOR_OPTIONS)
    if output:
        return str(C.strip_reference(return_type(Return(None, saved.source_type), conv)))
    ctype = argument_type(saved.source_type, mutable=False, symint=True, conv=conv)
    return str(C.strip_reference(ctype) if isinstance(ctype, C.ConstRef) else ctype)


#: Stored C++ types already spelled in this compile, by (schema type, output?,
#: conventions): ~1,900 saved values have a few hundred distinct keys.
_StoredTypes = dict[tuple[Type, bool, Conventions], str]


def _stored_type_memoised(
    saved: SavedAttribute, output: bool, conv: Conventions, spelled: _StoredTypes
) -> str:
    if saved.prop is not SavedProperty.value or saved.source_type is None:
        return _stored_type(saved, output=output, conv=conv)
    key = (saved.source_type, output, conv)
    text = spelled.get(key)
    if text is None:
        text = spelled[key] = _stored_type(saved, output=output, conv=conv)
    return text


def _properties(
    info: DifferentiabilityInfo, conv: Conventions, spelled: _StoredTypes
) -> tuple[NodeProperty, ...]:
    result = []
    for saved_list, output in ((info.all_saved_inputs, False), (info.all_saved_outputs, True)):
        for saved in sorted(saved_list, key=lambda s: s.name):
            stored = _stored_type_memoised(saved, output, conv, spelled)
            getter = _GETTERS.get(stored)
            # A saved Scalar *result* is kept as a SavedVariable (a 0-dim tensor).
            if output and stored == "at::Scalar":
                getter = Getter.saved_variable
            if getter is not None:
                result.append(NodeProperty(saved.name, getter))
    return tuple(result)


def _exposed(info: DifferentiabilityInfo, listed: frozenset[str]) -> bool:
    if info.node is None or not info.args_with_derivatives:
        return False
    return str(info.operator) in listed or not info.name.startswith("_foreach")


#: One Conventions per distinct value, by the fields Conventions.of reads.
_Interned = dict[tuple[bool, bool, bool], Conventions]


def _interned(function: NativeFunction, interned: _Interned) -> Conventions:
    # Building and hashing a Conventions per node (the stored-type memo is
    # keyed on it; attrs' Python-level __hash__ also keeps a hash object per
    # instance) cost more than this lookup.
    key = (
        function.use_const_ref_for_mutable_tensors,
        function.structured,
        function.structured_delegate is None,
    )
    conv = interned.get(key)
    if conv is None:
        conv = interned[key] = Conventions.of(function)
    return conv


def node_views(module: Module) -> list[NodeView]:
    listed = frozenset(str(entry.schema.name) for entry in module.derivatives)
    views: dict[str, NodeView] = {}
    spelled: _StoredTypes = {}  # this compile's only
    interned: _Interned = {}  # this compile's only
    for entry in module.autograd.functions:
        for info in entry.infos:
            if info.node is None or info.node in views or not _exposed(info, listed):
                continue
            function = module.find_function(info.operator)
            conv = DEFAULT_CONVENTIONS if function is None else _interned(function, interned)
            views[info.node] = NodeView(info.node, info.name, _properties(info, conv, spelled))
    return list(views.values())
