"""Which operators get vmap plumbing, and the C++ of one plumbing function.

functorch writes a *batch rule* per operator: a function over unwrapped
tensors, each followed by its batch dimension (``Tensor self, optional<int64_t>
self_bdim``).  The plumbing is the adapter between the dispatcher's signature
and that rule: it finds the current vmap level, calls the operator directly
when no argument is batched at that level, otherwise unwraps every tensor,
calls the rule and re-wraps the tensors it returns.  It is a template over the
rule (``template <typename batch_rule_t, batch_rule_t batch_rule>``), so a
header of plumbing costs nothing until functorch instantiates it.

Three shapes exist (:class:`PlumbingKind`): functional operators re-wrap the
rule's results; in-place operators that write only their first argument
return it after the rule ran; operators returning nothing just call the rule.
Every other operator (out=, mutable, in-place views, several written
arguments, non-tensor returns) has no generated plumbing and is left to
hand-written rules.
"""

from __future__ import annotations

import enum

import attrs

from schemac.backends.aten.registrations.cpp import block, call
from schemac.backends.aten.signatures.naming import unambiguous_name
from schemac.backends.aten.signatures.table import ViewTable
from schemac.backends.release_policy import ReleasePolicy
from schemac.ir.native import NativeFunction
from schemac.ir.schema import Argument, Return, SchemaKind
from schemac.ir.types import TENSOR, BaseTy, ListType, OptionalType, Type, is_like

_LEVEL = "cur_level"
_RESULTS = "results"
_TEMPLATE_HEAD = "template <typename batch_rule_t, batch_rule_t batch_rule>"


class PlumbingKind(enum.Enum):
    functional = "vmap plumbing"
    inplace = "vmap in-place plumbing"
    no_returns = "vmap plumbing without returns"


def _tensor_like(ty: Type) -> bool:
    return is_like(ty, BaseTy.Tensor)


def _is_optional_tensor(ty: Type) -> bool:
    return isinstance(ty, OptionalType) and ty.elem == TENSOR


def _is_tensor_list(ty: Type) -> bool:
    return isinstance(ty, ListType) and ty.elem == TENSOR


def _inplace_fits(f: NativeFunction) -> bool:
    """The in-place shape: only the first argument is written, tensors come back."""
    args = f.func.arguments.flat_all
    if not args[0].is_write or sum(a.is_write for a in args) != 1:
        return False
    return all(r.type == TENSOR or _is_tensor_list(r.type) for r in f.func.returns)


def plumbing_kind(f: NativeFunction, policy: ReleasePolicy) -> PlumbingKind | None:
    """The plumbing ``f`` gets, or None when its batch rule is written by hand."""
    func = f.func
    if not any(_tensor_like(a.type) for a in func.arguments.flat_all):
        return None  # nothing to unwrap
    if not func.returns:
        return PlumbingKind.no_returns
    if not all(_tensor_like(r.type) for r in func.returns) and (
        unambiguous_name(func) not in policy.vmap_non_tensor_return_ops
    ):
        return None
    if "inplace_view" in f.tags:
        return None
    kind = func.kind()
    if kind is SchemaKind.inplace:
        return PlumbingKind.inplace if _inplace_fits(f) else None
    if kind is SchemaKind.functional:
        return PlumbingKind.functional
    return None


def _unwrap(args: tuple[Argument, ...]) -> tuple[list[str], list[str]]:
    """Statements unwrapping the tensors, and the batch rule's arguments."""
    statements: list[str] = []
    optional: list[str] = []
    rule_args: list[str] = []
    for a in args:
        if a.type == TENSOR:
            statements.append(
                f"auto [{a.name}_value, {a.name}_bdim] = "
                f"{call('unwrapTensorAtLevel', (a.name, _LEVEL))};"
            )
        elif _is_optional_tensor(a.type):
            optional += [
                f"std::optional<Tensor> {a.name}_value;",
                f"std::optional<int64_t> {a.name}_bdim;",
                block(
                    f"if ({a.name})",
                    [
                        f"std::tie({a.name}_value, {a.name}_bdim) = "
                        f"{call('unwrapTensorAtLevel', (f'{a.name}.value()', _LEVEL))};"
                    ],
                ),
            ]
        else:
            rule_args.append(a.name)
            continue
        rule_args += [f"{a.name}_value", f"{a.name}_bdim"]
    # Optional tensors are unwrapped after the plain ones (they need a branch);
    # the batch rule still takes every argument in schema order.
    return statements + optional, rule_args


def _rewrap(returns: tuple[Return, ...]) -> str:
    """The return statement re-wrapping the batch rule's flat result tuple."""
    values: list[str] = []
    index = 0
    for ret in returns:
        if ret.type == TENSOR or _is_tensor_list(ret.type):
            wrap = "makeBatched" if ret.type == TENSOR else "makeBatchedVector"
            values.append(
                call(
                    wrap,
                    (
                        f"std::get<{index}>({_RESULTS})",
                        f"std::get<{index + 1}>({_RESULTS})",
                        _LEVEL,
                    ),
                )
            )
            index += 2
        else:
            values.append(f"std::get<{index}>({_RESULTS})")
            index += 1
    if len(values) == 1:
        return f"return {values[0]};"
    return f"return {call('std::make_tuple', values)};"


@attrs.frozen
class Plumbing:
    """One plumbing function: its declaration head and body lines."""

    head: str
    body: tuple[str, ...]

    def text(self) -> str:
        return f"{_TEMPLATE_HEAD}\n{block(self.head, self.body)}"


def plumbing(f: NativeFunction, kind: PlumbingKind, views: ViewTable) -> Plumbing:
    func = f.func
    sig = views.dispatcher(f)
    args = func.arguments.flat_all
    unbatched = " && ".join(
        f"!isBatchedAtLevel({a.name}, {_LEVEL})" for a in args if _tensor_like(a.type)
    )
    direct = call(f"at::_ops::{unambiguous_name(func)}::call", (p.name for p in sig.params))
    unwraps, rule_args = _unwrap(args)
    body = [
        "c10::impl::ExcludeDispatchKeyGuard guard(DispatchKey::FuncTorchBatched);",
        "auto maybe_layer = maybeCurrentDynamicLayer();",
        f'vmap_check_escaped(maybe_layer, "{kind.value}");',
        f"int64_t {_LEVEL} = maybe_layer->layerId();",
        block(f"if ({unbatched})", [f"return {direct};"]),
        *unwraps,
    ]
    rule = call("batch_rule", rule_args)
    if kind is PlumbingKind.functional:
        body += [f"auto {_RESULTS} = {rule};", _rewrap(func.returns)]
    elif kind is PlumbingKind.inplace:
        body += [f"{rule};", f"return {args[0].name};"]
    else:
        body.append(f"{rule};")
    return Plumbing(sig.decl(f"{unambiguous_name(func)}_generated_plumbing"), tuple(body))
