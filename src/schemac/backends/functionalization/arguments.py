"""The statements every functionalization kernel opens with.

A kernel of the Functionalize key receives ``FunctionalTensorWrapper``s (or
plain tensors, when functionalization is not active for them) and calls the
operator below the key on the tensors inside.  So each tensor-like argument
is *unwrapped* into a local named ``<arg>_`` of an owning type (a
``TensorList`` becomes a ``std::vector``, since the wrappers it refers to are
not the tensors we pass on).  Mutating kernels first *sync* the argument
(apply pending updates of its base), view kernels do not: a view may stay
lazy until something reads it.

Kernels also run the operator on meta tensors with the same sizes and
strides (:func:`meta_arguments`), to check shapes in-place operators reject
and to give XLA and lazy tensors the strides of eager mode.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType

import attrs

from schemac.backends.aten.registrations.cpp import block
from schemac.backends.aten.signatures import cxx_types as C
from schemac.backends.aten.signatures.signature import Signature
from schemac.ir.schema import Argument
from schemac.ir.types import BaseTy, ListType, OptionalType, Type, is_like

IMPL = "at::functionalization::impl"


def if_else(condition: str, then: list[str], otherwise: list[str]) -> str:
    return block(f"if ({condition})", then) + " " + block("else", otherwise)


def tensor_like(arg: Argument) -> bool:
    return is_like(arg.type, BaseTy.Tensor)


def _read_only(values: Mapping[str, str]) -> Mapping[str, str]:
    return MappingProxyType(dict(values))


@attrs.frozen
class Unwrapped:
    """The unwrapping statements, and each schema argument's value below the key."""

    statements: tuple[str, ...]
    #: schema argument name -> the expression to pass on (``self_``, ``dim``).
    values: Mapping[str, str] = attrs.field(converter=_read_only, eq=False)


def _owning(ty: C.CType, name: str) -> tuple[str, str]:
    """The local's type, and how a plain (non-functional) argument converts to it."""
    value = C.strip_reference(ty)
    if value == C.TENSOR_LIST:
        return str(C.Vector(C.TENSOR)), f"{name}.vec()"
    if value == C.I_TENSOR_LIST_REF:
        return str(C.Vector(C.TENSOR)), f"std::vector<at::Tensor>({name}.begin(), {name}.end())"
    return str(value), name


def unwrap(sig: Signature, args: tuple[Argument, ...], *, sync: bool) -> Unwrapped:
    """Unwrap every tensor-like argument of ``sig`` (whose params follow ``args``)."""
    statements: list[str] = []
    values: dict[str, str] = {}
    for param, arg in zip(sig.params, args, strict=True):
        if not tensor_like(arg):
            values[arg.name] = param.name
            continue
        local = f"{param.name}_"
        owning, plain = _owning(param.type, param.name)
        inside = [f"{local} = {IMPL}::from_functional_tensor({param.name});"]
        if sync:
            inside.insert(0, f"{IMPL}::sync({param.name});")
        statements.append(f"{owning} {local};")
        statements.append(
            if_else(f"{IMPL}::isFunctionalTensor({param.name})", inside, [f"{local} = {plain};"])
        )
        values[arg.name] = local
    return Unwrapped(tuple(statements), values)


def meta_arguments(sig: Signature, args: tuple[Argument, ...]) -> tuple[list[str], list[str]]:
    """Statements making a meta copy of each tensor-like argument, and the call's arguments."""
    statements: list[str] = []
    exprs: list[str] = []
    for param, arg in zip(sig.params, args, strict=True):
        if tensor_like(arg):
            statements.append(f"auto {param.name}_meta = to_meta({param.name});")
            exprs.append(f"{param.name}_meta")
        else:
            exprs.append(param.name)
    return statements, exprs


def on_meta(
    sig: Signature, args: tuple[Argument, ...], statement: Callable[[str], str]
) -> list[str]:
    """Statements running ``statement(arguments)`` on meta copies of the arguments."""
    statements, exprs = meta_arguments(sig, args)
    return [
        *statements,
        "at::AutoDispatchSkipFunctionalize skip_functionalize;",
        "c10::impl::ExcludeDispatchKeyGuard no_modes(meta_reference_excluded_keys);",
        statement(", ".join(exprs)),
    ]


def _symint_like(ty: Type) -> bool:
    return is_like(ty, BaseTy.SymInt)


def _symbolic_check(name: str, ty: Type) -> str:
    if isinstance(ty, OptionalType):
        inner = _symbolic_check(f"(*{name})", ty.elem)
        return f"({name}.has_value() && {inner})"
    if isinstance(ty, ListType):
        return (
            f"std::any_of({name}.begin(), {name}.end(), "
            "[](const c10::SymInt& s) { return s.is_symbolic(); })"
        )
    return f"{name}.is_symbolic()"


def has_symbolic_inputs(sig: Signature, args: tuple[Argument, ...]) -> list[str]:
    """``bool has_symbolic_inputs``: whether any SymInt argument is symbolic."""
    checks = [
        _symbolic_check(param.name, arg.type)
        for param, arg in zip(sig.params, args, strict=True)
        if _symint_like(arg.type)
    ]
    return [f"bool has_symbolic_inputs = {' || '.join(checks) if checks else 'false'};"]
