"""Redispatching an operator to the keys below the current one.

Every autograd-layer kernel ends up calling ``at::_ops::<op>::redispatch``
with the incoming key set masked to the keys after its own, and returning
either the call's result or, for in-place and out= operators, the mutated
arguments.  :class:`Redispatch` prints that call and the return expression
once for all three emitters.
"""

from __future__ import annotations

import attrs

from schemac.backends.autograd.operators import OperatorPlan
from schemac.ir.schema import SchemaKind


@attrs.frozen
class Redispatch:
    #: ``ret name(c10::DispatchKeySet ks, ...)`` of the kernel.
    head: str
    call: str
    #: True when the kernel returns its mutated arguments, not the call's value.
    returns_arguments: bool
    returns_void: bool
    result_names: tuple[str, ...]

    @property
    def return_expr(self) -> str:
        names = self.result_names
        if len(names) == 1:
            return names[0]
        if self.returns_arguments:
            return f"std::forward_as_tuple({', '.join(names)})"
        return f"std::make_tuple({', '.join(f'std::move({n})' for n in names)})"

    @property
    def binding(self) -> str:
        """Binds ``_tmp`` (the call's value) to the return names."""
        if len(self.result_names) == 1:
            return f"auto {self.result_names[0]} = std::move(_tmp);"
        return f"auto [{', '.join(self.result_names)}] = std::move(_tmp);"


def redispatch(
    plan: OperatorPlan, name: str, keyset: str, arg_exprs: dict[str, str] | None = None
) -> Redispatch:
    names = plan.param_names
    if arg_exprs:
        names = tuple(arg_exprs.get(n, n) for n in names)
    args = ", ".join([keyset, *names])
    kind = plan.kind
    return Redispatch(
        head=f"{plan.kernel_returns} {name}({plan.kernel_params})",
        call=f"{plan.ops_name}::redispatch({args})",
        returns_arguments=kind in (SchemaKind.inplace, SchemaKind.out),
        returns_void=not plan.fn.func.returns,
        result_names=plan.result_names,
    )
