"""One ``Declarations.yaml`` record per native function, as plain ordered data.

A record describes an operator through the ATen C++ API views (the signature
views of ``backends/aten/signatures``), so every type spelling here is the
one the headers declare:

* ``arguments`` follow the plain ``at::`` overload (out arguments first,
  TensorOptions gathered into ``options``), ``schema_order_arguments`` the
  schema (TensorOptions scattered); both concrete-size (``SymInt`` as
  ``int64_t``), never a method (``self`` is an argument);
* ``dynamic_type`` is the type an argument has apart from being optional
  or mutable: ``at::Tensor`` for every tensor, otherwise the C++ type of the
  non-optional schema type;
* ``default`` is the C++ default expression, read back as a YAML value where
  it is one (``false``, ``1``, ``0.5``), else kept as text (``::std::nullopt``);
* returns are named after the out arguments they alias (out= operators),
  ``self`` (in-place), their schema name, or ``result`` / ``result<i>``.

Mapping keys are in a fixed order (records: the reference's field order;
arguments and returns: sorted), so the file is stable byte for byte.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from schemac.backends.aten.signatures import Conventions, CppSignatureGroup, Param
from schemac.backends.aten.signatures.defaults import cpp_default
from schemac.backends.aten.signatures.naming import cpp_name
from schemac.backends.aten.signatures.type_map import argument_type, return_type
from schemac.ir.native import NativeFunction, Variant
from schemac.ir.resolved import Resolution
from schemac.ir.schema import Argument, Return
from schemac.ir.types import BaseTy, BaseType, ListType, OptionalType, Type

#: A YAML value: scalars, lists and ordered mappings only.
Value = str | int | float | bool | None | list["Value"] | dict[str, "Value"]

_TENSOR = BaseType(BaseTy.Tensor)
_BOOL = BaseType(BaseTy.bool)
_INTEGER = re.compile(r"-?\d+")
_REAL = re.compile(r"-?(\d+\.\d*|\.\d+|\d+)([eE][-+]?\d+)?")


def dynamic_type(ty: Type, conv: Conventions) -> str:
    """The C++ type of ``ty`` apart from being optional or mutable."""
    if isinstance(ty, OptionalType):
        ty = ty.elem
    if ty == _TENSOR:
        return "at::Tensor"
    return str(argument_type(ty, mutable=False, symint=False, conv=conv))


def is_nullable(ty: Type) -> bool:
    if isinstance(ty, OptionalType):
        return True
    return isinstance(ty, ListType) and is_nullable(ty.elem)


def _list_size(ty: Type) -> int | None:
    """The size of a fixed-size list (optional or not) whose C++ type does not carry it.

    ``bool[3]`` is a ``::std::array<bool,3>``, so only ``int[2]``-like lists say it.
    """
    if isinstance(ty, OptionalType):
        ty = ty.elem
    if isinstance(ty, ListType) and ty.elem != _BOOL:
        return ty.size
    return None


def yaml_default(expression: str) -> Value:
    """A C++ default expression as the YAML value it reads as (``false``, ``1``...)."""
    if expression in ("true", "false"):
        return expression == "true"
    if _INTEGER.fullmatch(expression):
        return int(expression)
    if _REAL.fullmatch(expression):
        return float(expression)
    return expression


def _argument(
    arg: Argument,
    cpp_type: str,
    conv: Conventions,
    *,
    kwarg_only: bool,
    out_field: str | None,
    is_out: bool,
) -> dict[str, Value]:
    record: dict[str, Value] = {}
    if is_out:
        record["allocate"] = True
    record["annotation"] = None if arg.annotation is None else str(arg.annotation)
    # ``cpp_no_default_args`` only hides a default from C++ overload resolution;
    # the record still says what the schema's default is.
    if arg.default is not None:
        record["default"] = yaml_default(cpp_default(arg.default, arg.type, symint=False))
    record["dynamic_type"] = dynamic_type(arg.type, conv)
    if out_field is not None:
        record["field_name"] = out_field
    record["is_nullable"] = is_nullable(arg.type)
    if kwarg_only:
        record["kwarg_only"] = True
    record["name"] = arg.name
    if is_out:
        record["output"] = True
    size = _list_size(arg.type)
    if size is not None:
        record["size"] = size
    record["type"] = cpp_type
    return record


def _options_argument(param: Param) -> dict[str, Value]:
    record: dict[str, Value] = {"annotation": None}
    if param.default is not None:
        record["default"] = yaml_default(param.default)
    record.update(
        dynamic_type="at::TensorOptions",
        is_nullable=False,
        kwarg_only=True,
        name=param.name,
        type=str(param.type),
    )
    return record


#: Argument records already made in this run, by what they are made from.
#: Equal argument texts parse to one shared Argument object (Note [Piecewise
#: parsing]), so the object's identity (the module keeps it alive) is a cheap
#: key; records are shared between operators and never mutated.
RecordMemo = dict[tuple[object, ...], dict[str, Value]]


class _Arguments:
    """Turns the parameters of one signature into argument records."""

    def __init__(self, fn: NativeFunction, conv: Conventions, memo: RecordMemo) -> None:
        args = fn.func.arguments
        self.conv = conv
        self.memo = memo
        self.by_name = {a.name: a for a in args.flat_all}
        self.kwarg_only = frozenset(a.name for a in args.kwarg_only)
        self.out = frozenset(a.name for a in args.out)
        # An out argument's record names the return it becomes, if named
        # (an out= schema returns exactly its out arguments; others have none).
        pairs = zip(args.out, fn.func.returns, strict=False)
        self.out_fields = {a.name: r.name for a, r in pairs if r.name is not None}

    def records(self, params: Sequence[Param]) -> list[Value]:
        out: list[Value] = []
        for param in params:
            arg = self.by_name.get(param.source)
            if arg is None:  # the gathered TensorOptions
                out.append(_options_argument(param))
                continue
            cpp_type = str(param.type)
            kwarg_only = arg.name in self.kwarg_only
            out_field = self.out_fields.get(arg.name)
            is_out = arg.name in self.out
            key = (id(arg), cpp_type, kwarg_only, out_field, is_out, self.conv)
            record = self.memo.get(key)
            if record is None:
                record = self.memo[key] = _argument(
                    arg,
                    cpp_type,
                    self.conv,
                    kwarg_only=kwarg_only,
                    out_field=out_field,
                    is_out=is_out,
                )
            out.append(record)
        return out


def _returns(fn: NativeFunction, conv: Conventions) -> list[Value]:
    func = fn.func
    out_names = [a.name for a in func.arguments.out]
    records: list[Value] = []
    for index, ret in enumerate(func.returns):
        record: dict[str, Value] = {"dynamic_type": dynamic_type(ret.type, conv)}
        if ret.name is not None:
            record["field_name"] = ret.name
        record["name"] = _return_name(fn, ret, index, out_names)
        record["type"] = str(return_type(ret, conv))
        records.append(record)
    return records


def _return_name(fn: NativeFunction, ret: Return, index: int, out_names: list[str]) -> str:
    if out_names:
        return out_names[index]
    if fn.func.name.name.inplace:
        return "self"
    if ret.name is not None:
        # A return may not shadow an argument in generated C++ that names both.
        taken = any(a.name == ret.name for a in fn.func.arguments.flat_all)
        return f"{ret.name}_return" if taken else ret.name
    return "result" if len(fn.func.returns) == 1 else f"result{index}"


def _method_of(fn: NativeFunction) -> list[Value]:
    owners: list[Value] = ["Type"]
    if Variant.method in fn.variants:
        owners.append("Tensor")
    if Variant.function in fn.variants:
        owners.append("namespace")
    return owners


def declaration(
    fn: NativeFunction,
    group: CppSignatureGroup,
    resolution: Resolution,
    memo: RecordMemo | None = None,
) -> dict[str, Value]:
    """The record of ``fn``; ``group``: its C++ API overloads (not as a method).

    ``memo``: shared by the records of one run (:data:`RecordMemo`).
    """
    conv = Conventions.of(fn)
    func = fn.func
    arguments = _Arguments(fn, conv, {} if memo is None else memo)
    schema_order = group.faithful or group.signature
    has_options = func.arguments.tensor_options is not None
    return {
        "name": cpp_name(func, faithful=False, symint=False),
        "operator_name": str(func.name.name),
        "overload_name": func.name.overload,
        "manual_kernel_registration": fn.manual_kernel_registration,
        "category_override": fn.category_override or "",
        "schema_string": f"{fn.namespace}::{func}",
        "arguments": arguments.records(group.signature.params),
        "schema_order_cpp_signature": schema_order.type(),
        "schema_order_arguments": arguments.records(schema_order.params),
        "method_of": _method_of(fn),
        "mode": "native",
        "python_module": fn.python_module or "",
        "returns": _returns(fn, conv),
        "inplace": func.name.name.inplace,
        "is_factory_method": has_options and Variant.method not in fn.variants,
        "abstract": resolution.is_abstract,
        "device_guard": fn.device_guard,
        "with_gil": False,
        "deprecated": False,
        "has_math_kernel": resolution.has_composite_implicit_autograd_kernel,
    }
