"""Which ``PythonArgs`` accessor reads a parsed argument (``_r.tensor(0)``, ``_r.toInt64(1)``).

torch/csrc/utils/python_arg_parser.h has one accessor per C++ type, named
irregularly; this table is the mapping, and types it lacks are errors rather
than guesses.  An argument with a ``default_init`` (a TensorOptions field whose
omitted value is a C++ expression) uses the ``...WithDefault`` accessor.
"""

from __future__ import annotations

from schemac.backends.python.arguments import PythonArgument
from schemac.backends.python.defaults import means_no_value
from schemac.backends.python.errors import UnsupportedPythonType
from schemac.ir.types import BaseTy, BaseType, ListType, OptionalType, Type

_BASE_ACCESSORS: dict[BaseTy, str] = {
    BaseTy.Tensor: "tensor",
    BaseTy.Stream: "stream",
    BaseTy.Storage: "storage",
    BaseTy.Scalar: "scalar",
    BaseTy.ScalarType: "scalartype",
    BaseTy.Device: "device",
    BaseTy.DeviceIndex: "toInt64",
    BaseTy.int: "toInt64",
    BaseTy.SymInt: "toSymInt",
    BaseTy.bool: "toBool",
    BaseTy.float: "toDouble",
    BaseTy.str: "stringView",
    BaseTy.Layout: "layout",
    BaseTy.MemoryFormat: "memoryformat",
    BaseTy.Dimname: "dimname",  # releases with named tensors (2.12 and older)
}

#: Accessors that have a ``...WithDefault(index, expr)`` form.
_WITH_DEFAULT = frozenset({BaseTy.ScalarType, BaseTy.Device, BaseTy.bool, BaseTy.Layout})

_LIST_ACCESSORS: dict[str, str] = {
    "Tensor?": "list_of_optional_tensors",
    "int": "intlist",
    "float": "doublelist",
    "SymInt": "symintlist",
    "Scalar": "scalarlist",
    "Dimname": "dimnamelist",
}


def accessor(ty: Type, default: str | None, with_default: bool) -> str:
    if isinstance(ty, BaseType):
        if ty.name not in _BASE_ACCESSORS:
            raise UnsupportedPythonType(str(ty))
        if with_default:
            if ty.name not in _WITH_DEFAULT:
                raise UnsupportedPythonType(f"{ty} with a default initialiser")
            return _BASE_ACCESSORS[ty.name] + "WithDefault"
        return _BASE_ACCESSORS[ty.name]
    if isinstance(ty, OptionalType):
        if ty.elem == BaseType(BaseTy.Tensor):
            return "optionalTensor"
        if ty.elem == BaseType(BaseTy.Generator):
            return "generator"
        if ty.elem == ListType(BaseType(BaseTy.Dimname)):
            return "toDimnameListOptional"
        if not with_default and (default is None or means_no_value(default)):
            return accessor(ty.elem, None, False) + "Optional"
        return accessor(ty.elem, default, with_default)
    if isinstance(ty, ListType):
        elem = str(ty.elem)
        if elem == "Tensor":
            return f"tensorlist_n<{ty.size}>" if ty.size is not None else "tensorlist"
        if elem in _LIST_ACCESSORS:
            return _LIST_ACCESSORS[elem]
    raise UnsupportedPythonType(str(ty))


def accessor_of(arg: PythonArgument) -> str:
    """The accessor that reads ``arg`` (``tensor``, ``scalartypeWithDefault``)."""
    return accessor(arg.type, arg.default, arg.default_init is not None)


def parsed_expression(index: int, arg: PythonArgument) -> str:
    """``_r.<accessor>(index[, default_init])``: argument ``index`` as a C++ value."""
    method = accessor_of(arg)
    extra = f", {arg.default_init}" if arg.default_init is not None else ""
    return f"_r.{method}({index}{extra})"
