"""Functionalization kernels of mutating operators: call the functional twin.

``add_(self, other)`` under functionalization becomes ``tmp = add(self_,
other_)`` on the unwrapped tensors, then ``self`` (a FunctionalTensorWrapper)
is pointed at ``tmp`` and the update is committed to its storage, so every
alias of ``self`` sees it.  The same holds for out= operators (the out
arguments are replaced) and mutable ones (each written argument takes the
matching extra return of the functional variant, which the
``autogen-variants`` pass gave those returns in order).

When the written arguments are not functional tensors the kernel steps aside
and calls the operator itself below the key; mixing (writing a plain tensor
with a functional one) is an error, except for XLA tensors, where
``cpu.copy_(xla)`` is ordinary code.
"""

from __future__ import annotations

from schemac.backends.aten.registrations.cpp import block, call
from schemac.backends.aten.signatures.naming import unambiguous_name
from schemac.backends.aten.signatures.table import ViewTable
from schemac.backends.functionalization.arguments import (
    IMPL,
    Unwrapped,
    on_meta,
    tensor_like,
    unwrap,
)
from schemac.backends.functionalization.names import kernel_name
from schemac.backends.release_policy import ReleasePolicy
from schemac.ir.native import NativeFunction
from schemac.ir.schema import SchemaKind
from schemac.ir.types import TENSOR, BaseTy, is_like

_MIXED = (
    '"mutating a non-functional tensor with a functional tensor is not allowed.",'
    ' " Please ensure that all of your inputs are wrapped inside of a functionalize() call."'
)
#: The TensorOptions of a factory's functional variant, taken from its out= tensor.
_OPTIONS_FROM_OUT = {
    "dtype": "{out}.scalar_type()",
    "layout": "{out}.layout()",
    "device": "{out}.device()",
    "pin_memory": "::std::nullopt",
}


def writes_arguments(f: NativeFunction) -> bool:
    return any(a.is_write for a in f.func.arguments.flat_all)


def _functional_arguments(
    f: NativeFunction, functional: NativeFunction, unwrapped: Unwrapped, policy: ReleasePolicy
) -> list[str]:
    values = dict(unwrapped.values)
    outs = f.func.arguments.out
    if outs:
        first = unwrapped.values[outs[0].name]
        for field, template in _OPTIONS_FROM_OUT.items():
            values.setdefault(field, template.format(out=first))
    exprs = [values[a.name] for a in functional.func.arguments.flat_all]
    if f.func.kind() is SchemaKind.out and policy.is_out_dtype_preserving(f.func):
        names = [a.name for a in functional.func.arguments.flat_all]
        at = names.index("dtype")
        dtype = exprs[at]
        exprs[at] = (
            f"{dtype}.has_value() ? {dtype} : "
            f"::std::optional<at::ScalarType>({values[outs[0].name]}.scalar_type())"
        )
    return exprs


def _returned(f: NativeFunction, fresh: list[str]) -> list[str]:
    """The values ``f`` returns, in order: written arguments and fresh outputs."""
    values: list[str] = []
    fresh_values = iter(fresh)
    for alias in f.func.aliased_return_names():
        values.append(alias if alias is not None else next(fresh_values))
    return values


def _return(f: NativeFunction, returns: str, values: list[str]) -> list[str]:
    if not values:
        return []
    if len(values) == 1:
        return [f"return {values[0]};"]
    return [f"return {returns}({', '.join(values)});"]


def _element(var: str, count: int, index: int) -> str:
    return var if count == 1 else f"std::get<{index}>({var})"


def mutation_kernel(
    f: NativeFunction, functional: NativeFunction, policy: ReleasePolicy, views: ViewTable
) -> str:
    """The Functionalize kernel of in-place, out= or mutable ``f``."""
    func = f.func
    args = func.arguments.flat_all
    sig = views.dispatcher(f)
    body: list[str] = []
    storage = any(is_like(a.type, BaseTy.Storage) for a in args)
    if func.kind() is SchemaKind.inplace and not storage:
        # An in-place operator may reject shapes its functional twin accepts
        # (add_ does not broadcast self): check on meta tensors first.  Not
        # for set_(Storage): a storage has no meta copy.
        op = f"at::_ops::{unambiguous_name(func)}::call"
        check = on_meta(sig, args, lambda exprs: f"{op}({exprs});")
        body.append(block("if (!meta_reference_disabled())", check))
    unwrapped = unwrap(sig, args, sync=True)
    body += unwrapped.statements
    aliased = [a.name for a in args if tensor_like(a) and a.annotation is not None]
    others = [a.name for a in args if tensor_like(a) and a.annotation is None]
    xla = [a.name for a in args if a.type == TENSOR and a.annotation is None]
    written_functional = " && ".join(f"{IMPL}::isFunctionalTensor({n})" for n in aliased)
    body.append(f"const bool written_are_functional = {written_functional or 'true'};")

    # Not functionalizing: call the operator itself.
    fresh_count = sum(alias is None for alias in func.aliased_return_names())
    direct = call(
        f"at::_ops::{unambiguous_name(func)}::call", (unwrapped.values[a.name] for a in args)
    )
    step_aside: list[str] = []
    if others:
        read_functional = " || ".join(f"{IMPL}::isFunctionalTensor({n})" for n in others)
        on_xla = " || ".join(f"{n}.device().type() == c10::DeviceType::XLA" for n in xla)
        allowed = f"!({read_functional})" if not xla else f"({on_xla}) || !({read_functional})"
        step_aside.append(f"TORCH_INTERNAL_ASSERT({allowed},\n    {_MIXED});")
    step_aside.append("at::AutoDispatchSkipFunctionalize skip_functionalize;")
    # Only fresh outputs are taken from the call; written arguments are returned as they are.
    step_aside.append(f"auto tmp_output = {direct};" if fresh_count else f"{direct};")
    fresh = [_element("tmp_output", len(func.returns), i) for i in _fresh_indices(f)]
    step_aside += _return(f, str(sig.returns), _returned(f, fresh)) or ["return;"]
    body.append(block("if (!written_are_functional)", step_aside))

    # Functionalizing: call the functional variant, then write its results back.
    functional_call = call(
        f"at::_ops::{unambiguous_name(functional.func)}::call",
        _functional_arguments(f, functional, unwrapped, policy),
    )
    body.append(
        block(
            "auto tmp_output = [&]()",
            ["at::AutoDispatchSkipFunctionalize skip_functionalize;", f"return {functional_call};"],
            tail="();",
        )
    )
    count = len(functional.func.returns)
    wrapped: list[str] = []
    for i in range(fresh_count):
        body.append(
            f"auto output_{i} = {IMPL}::to_functional_tensor({_element('tmp_output', count, i)});"
        )
        wrapped.append(f"output_{i}")
    written = [a.name for a in args if a.is_write]
    for offset, name in enumerate(written):
        inner = _element("tmp_output", count, fresh_count + offset)
        body += [
            f"auto {name}_inner = {IMPL}::from_functional_tensor({name});",
            f"{IMPL}::replace_({name}, {inner});",
            f"{IMPL}::commit_update({name});",
            f"{IMPL}::sync({name});",
            f"auto {name}_inner_updated = {IMPL}::from_functional_tensor({name});",
            f"{IMPL}::propagate_xla_data_direct({name}_inner, {name}_inner_updated);",
        ]
    body += _return(f, str(sig.returns), _returned(f, wrapped))
    return block(sig.defn(kernel_name(func), redispatch=True), body)


def _fresh_indices(f: NativeFunction) -> list[int]:
    return [i for i, alias in enumerate(f.func.aliased_return_names()) if alias is None]
