"""ViewMeta classes and view inverses: how functionalization replays a view.

A functional tensor made by a view remembers, per view applied, a
``ViewMeta``: ``forward(base)`` recomputes the view from its base (the view
itself when views are re-applied, else its ``_copy`` twin) and
``reverse(base, mutated_view)`` writes a mutated view back into the base
through the view's *inverse*, which PyTorch implements by hand
(``FunctionalInverses.h`` declares every one, so a new view without an
inverse fails to link, not silently).

One class per view and per in-place view of a view group whose view is not
CompositeImplicitAutograd (those decompose before functionalization).  Its
fields are the view's arguments after ``self``, in owning types
(``std::vector<c10::SymInt>`` for ``SymInt[]``) since the class outlives the
call, plus ``reapply_views`` and ``inverse_return_mode``.  Python pickles a
ViewMeta through ``SerializableTuple``/``to_serializable_tuple``, whose
element order (base fields, then the class's own) is part of that format.
Views returning several tensors (``split``) also carry ``out_index``.

Note [Single-output replay]
~~~~~~~~~~~~~~~~~~~~~~~~~~~
``forward`` of a multi-output view runs the whole view and keeps output
``out_index``, so rebuilding all N outputs of one base makes N^2 tensors.
Where the release says so (table ``view_meta_single_output_replay``), each
output is rebuilt directly: as a ``slice`` of the base along the view's
``int`` dimension, starting after the sizes of the outputs before it (one
size for all, or a list of sizes), or as a ``select`` of index ``out_index``.
The arguments are the view's own; the table only names the kind.
"""

from __future__ import annotations

import attrs

from schemac.backends.aten.registrations.cpp import block, call
from schemac.backends.aten.signatures import cxx_types as C
from schemac.backends.aten.signatures.naming import unambiguous_name
from schemac.backends.aten.signatures.table import ViewTable
from schemac.backends.functionalization.names import NAMESPACE, class_name, inverse_name
from schemac.backends.release_policy import InverseDeclaration, ReleasePolicy
from schemac.ir.native import NativeFunction
from schemac.ir.schema import FunctionSchema
from schemac.ir.types import BaseTy, BaseType, ListType, Type

_MODE = f"{NAMESPACE}::InverseReturnMode"
_INVERSES = f"{NAMESPACE}::FunctionalInverses"
_EMPTY = " {}"  # an empty constructor body
_REVERSE = "(const at::Tensor& base, const at::Tensor& mutated_view)"


def is_multi_output(func: FunctionSchema) -> bool:
    returns = func.returns
    return len(returns) > 1 or (len(returns) == 1 and isinstance(returns[0].type, ListType))


@attrs.frozen
class Field:
    """One constructor parameter and the member it initialises."""

    name: str
    #: The member's (owning) type.
    type: str
    #: The constructor parameter's type (the dispatcher's, possibly non-owning).
    param_type: str
    #: The member's initialiser from the parameter.
    init: str


#: Const references to values a ViewMeta may keep by value (``view_meta_owns_tensors``).
_BY_VALUE = (C.TENSOR, C.SCALAR, C.Optional(C.TENSOR), C.Optional(C.SCALAR))


def _owning(ty: C.CType, owns_tensors: bool) -> C.CType:
    if ty == C.SYMINT_ARRAY_REF:
        return C.Vector(C.SYMINT)
    if ty == C.INT_ARRAY_REF:
        return C.Vector(C.INT64)
    if owns_tensors and isinstance(ty, C.ConstRef) and ty.elem in _BY_VALUE:
        return ty.elem
    return ty


def _fields(view: NativeFunction, views: ViewTable, owns_tensors: bool) -> tuple[Field, ...]:
    fields = [
        Field("reapply_views", "bool", "bool", "reapply_views"),
        Field("inverse_return_mode", _MODE, _MODE, "inverse_return_mode"),
    ]
    sig = views.dispatcher(view)
    for param in sig.params[1:]:
        owning = _owning(param.type, owns_tensors)
        is_array = isinstance(owning, C.Vector)
        init = f"{param.name}.vec()" if is_array else param.name
        fields.append(Field(param.name, str(owning), str(param.type), init))
    return tuple(fields)


#: What a single-output replay calls (Note [Single-output replay]): ATen's
#: slice and select views, and their copy twins, by unambiguous name.
_REPLAY_OPS = {
    "slice": ("slice_Tensor", "slice_copy_Tensor"),
    "select": ("select_int", "select_copy_int"),
}


@attrs.frozen
class SingleOutputReplay:
    """How ``forward`` rebuilds one output of a multi-output view."""

    kind: str
    #: The view's ``int`` dimension argument.
    dim: str
    #: The size argument of a slice (``split_size``, ``split_sizes``), if any.
    size: str | None = None
    #: The C++ type of one size, when ``size`` is a list.
    size_element: str | None = None

    def body(self, copy: bool) -> list[str]:
        op = f"at::_ops::{_REPLAY_OPS[self.kind][copy]}::call"
        if self.kind == "select" or self.size is None:
            return [f"return {call(op, ['base', self.dim, 'out_index'])};"]
        if self.size_element is None:  # equal chunks: output i starts at i * size
            start, length = [f"auto start = {self.size} * out_index;"], self.size
        else:  # listed sizes: output i starts after the sizes before it
            start = [
                f"{self.size_element} start = 0;",
                block("for (int64_t i = 0; i < out_index; ++i)", [f"start += {self.size}[i];"]),
            ]
            length = f"{self.size}[out_index]"
        args = ["base", self.dim, "start", f"start + {length}", "1"]
        return [*start, f"return {call(op, args)};"]


def _is_int(ty: Type) -> bool:
    return isinstance(ty, BaseType) and ty.name == BaseTy.int


def _is_size(ty: Type) -> bool:
    return isinstance(ty, BaseType) and ty.name in (BaseTy.int, BaseTy.SymInt)


def single_output_replay(view: NativeFunction, kind: str | None) -> SingleOutputReplay | None:
    """The replay of ``kind`` for ``view``'s arguments; None (replay the whole view)
    when there is no kind or the arguments are not one ``int`` dim (and one size)."""
    rest = view.func.arguments.flat_all[1:]
    dims = [a for a in rest if _is_int(a.type)]
    if kind not in _REPLAY_OPS or not dims:
        return None
    dim = dims[-1]
    others = [a for a in rest if a is not dim]
    if kind == "select":
        return SingleOutputReplay(kind, dim.name) if not others else None
    if len(others) != 1:
        return None
    size = others[0]
    if _is_size(size.type):
        return SingleOutputReplay(kind, dim.name, size.name)
    if isinstance(size.type, ListType) and _is_size(size.type.elem):
        element = "c10::SymInt" if size.type.elem == BaseType(BaseTy.SymInt) else "int64_t"
        return SingleOutputReplay(kind, dim.name, size.name, element)
    return None


@attrs.frozen
class ViewMetaClass:
    """The ViewMeta specialisation of ``f`` (a view or in-place view of a group)."""

    name: str
    #: The group's view (forward with reapplied views, and the inverse) and copy twin.
    view_op: str
    copy_op: str
    inverse: str
    multi_output: bool
    as_strided: bool
    fields: tuple[Field, ...]
    #: Set when ``forward`` rebuilds one output only (Note [Single-output replay]).
    replay: SingleOutputReplay | None = None

    @property
    def base_params(self) -> tuple[tuple[str, str], ...]:
        """What every ViewMeta takes: the symbolic flag, and the output index if several."""
        if self.multi_output:
            return (("bool", "has_symbolic_inputs"), ("int64_t", "out_index"))
        return (("bool", "has_symbolic_inputs"),)

    @property
    def qualified(self) -> str:
        return f"{NAMESPACE}::{self.name}"

    def make(self, out_index: str = "0") -> str:
        """``std::make_shared<...>(...)`` from variables named like the parameters."""
        names = [name if name != "out_index" else out_index for _, name in self.base_params]
        names += [field.name for field in self.fields]
        return call(f"std::make_shared<{self.qualified}>", names)

    def declaration(self) -> str:
        params = [*self.base_params, *((f.param_type, f.name) for f in self.fields)]
        tuple_types = [*self.base_params, *((f.type, f.name) for f in self.fields)]
        elements = ",\n".join(f"    {ty} /* {name} */" for ty, name in tuple_types)
        from_tuple = ", ".join(f"std::get<{i}>(tpl)" for i in range(len(params)))
        out_index = "out_index" if self.multi_output else "0"
        base_init = (
            f"{NAMESPACE}::ViewMeta(has_symbolic_inputs, "
            f"/*is_multi_output=*/{_cpp_bool(self.multi_output)}, "
            f"/*is_as_strided=*/{_cpp_bool(self.as_strided)}, /*out_index=*/{out_index})"
        )
        inits = ",\n".join(
            [f"      {base_init}", *(f"      {f.name}({f.init})" for f in self.fields)]
        )
        lines = [
            f"FUNCTIONALIZATION_VIEWMETA_NAME({self.name})",
            f"FUNCTIONALIZATION_VIEWMETA_SERIALIZABLE_TUPLE(\n{elements});",
            "",
            f"{self.name}(const SerializableTuple& tpl)\n    : {self.name}({from_tuple})" + _EMPTY,
            "",
            f"{self.name}({', '.join(f'{ty} {name}' for ty, name in params)})\n    :\n{inits}"
            + _EMPTY,
            "",
            "Tensor forward(const Tensor& base) override;",
            "Tensor reverse(const Tensor& base, const Tensor& mutated_view) override;",
        ]
        if self.multi_output:
            lines.append("std::shared_ptr<ViewMeta> to_out_index(int64_t out_idx) override;")
        every = ", ".join(name for _, name in tuple_types)
        lines += [
            "",
            block(
                "SerializableTuple to_serializable_tuple()", [f"return std::make_tuple({every});"]
            ),
            "",
            *(f"{f.type} {f.name};" for f in self.fields),
        ]
        return block(f"struct TORCH_API {self.name} : public ViewMeta", lines, tail=";")

    def definitions(self) -> str:
        args = ["base", *(f.name for f in self.fields[2:])]
        pick = "[out_index]" if self.multi_output else ""
        if self.replay is not None:
            arms = self.replay.body(copy=False), self.replay.body(copy=True)
        else:
            arms = (
                [f"return {call(f'at::_ops::{self.view_op}::call', args)}{pick};"],
                [f"return {call(f'at::_ops::{self.copy_op}::call', args)}{pick};"],
            )
        forward = block(
            f"at::Tensor {self.name}::forward(const at::Tensor& base)",
            [block("if (reapply_views)", arms[0]) + " " + block("else", arms[1])],
        )
        inverse_args = ["base", "mutated_view", "inverse_return_mode"]
        if self.multi_output:
            inverse_args.append("out_index")
        inverse_args += [f.name for f in self.fields[2:]]
        reverse = block(
            f"at::Tensor {self.name}::reverse{_REVERSE}",
            [f"return {call(f'{_INVERSES}::{self.inverse}', inverse_args)};"],
        )
        parts = [forward, reverse]
        if self.multi_output:
            parts.append(
                block(
                    f"std::shared_ptr<{NAMESPACE}::ViewMeta> "
                    f"{self.name}::to_out_index(int64_t out_index)",
                    [f"return {self.make('out_index')};"],
                )
            )
        return "\n\n".join(parts)

    def binding(self) -> str:
        return f"create_binding_with_pickle<{self.qualified}>(functionalization);"


def _cpp_bool(value: bool) -> str:
    return "true" if value else "false"


def view_meta_class(
    f: NativeFunction,
    view: NativeFunction,
    copy: NativeFunction,
    policy: ReleasePolicy,
    views: ViewTable,
) -> ViewMetaClass:
    """The class of ``f``, a member (view or in-place view) of ``view``'s group."""
    return ViewMetaClass(
        name=class_name(f.func),
        view_op=unambiguous_name(view.func),
        copy_op=unambiguous_name(copy.func),
        inverse=inverse_name(view.func),
        multi_output=is_multi_output(f.func),
        as_strided=str(f.func.name) in policy.as_strided_views,
        fields=_fields(f, views, policy.view_meta_owns_tensors),
        replay=(
            single_output_replay(f, policy.replay_kind(f.func)) if is_multi_output(f.func) else None
        ),
    )


_INVERSE_HEAD = (
    "const at::Tensor & base",
    "const at::Tensor & mutated_view",
    f"{_MODE} inverse_return_mode",
)


def hand_declared_inverse(declaration: InverseDeclaration) -> str:
    params = [*_INVERSE_HEAD, *(f"{ty} {name}" for ty, name in declaration.params)]
    return f"static at::Tensor {declaration.name}({', '.join(params)});"


def inverse_declaration(view: NativeFunction, views: ViewTable) -> str:
    """``static at::Tensor <view>_inverse(base, mutated_view, mode, [out_index,] args...);``."""
    sig = views.dispatcher(view)
    params = list(_INVERSE_HEAD)
    if is_multi_output(view.func):
        params.append("int64_t out_index")
    params += [p.defn() for p in sig.params[1:]]
    return f"static at::Tensor {inverse_name(view.func)}({', '.join(params)});"
