"""ViewFuncs.h / ViewFuncs.cpp: replayable view operations.

When a view cannot be recomputed with ``as_strided`` (a tensor subclass, a
nested tensor, a view that changes dtype), autograd replays the view
operation itself on a new base.  A ``ViewFunc`` subclass per view operator
captures the operator's non-self arguments by value, and exposes the SymInts
and tensors among them so that compile-time tracing can swap them.

One class per view operator that gets generated ADInplaceOrView kernels
(:class:`~schemac.backends.autograd.operators.OperatorPlan`), named after the
operator's unambiguous name (``select.int`` -> ``SelectIntViewFunc``).
"""

from __future__ import annotations

from collections.abc import Iterator

import attrs

from schemac.backends.aten.signatures import cxx_types as C
from schemac.backends.aten.signatures.conventions import Conventions
from schemac.backends.aten.signatures.naming import unambiguous_name
from schemac.backends.aten.signatures.type_map import argument_type
from schemac.backends.autograd.operators import OperatorPlan
from schemac.backends.output.files import GeneratedFile, Provenance
from schemac.backends.templating import Templates
from schemac.ir.native import NativeFunction
from schemac.ir.schema import Argument
from schemac.ir.types import BaseTy, ListType, is_like, list_like

#: Non-owning C++ types a captured argument must not keep, and what it keeps.
_OWNING = {
    str(C.SYMINT_ARRAY_REF): "::std::vector<c10::SymInt>",
    str(C.INT_ARRAY_REF): "::std::vector<int64_t>",
    str(C.OPTIONAL_SYMINT_ARRAY_REF): "::std::optional<::std::vector<c10::SymInt>>",
    str(C.OPTIONAL_INT_ARRAY_REF): "::std::optional<::std::vector<int64_t>>",
}


def view_func_name(fn: NativeFunction) -> str:
    """``SelectIntViewFunc``; a leading underscore is kept (``_ConjViewFunc``)."""
    snake = f"{unambiguous_name(fn.func)}_view_func"
    camel = "".join(part[:1].upper() + part[1:].lower() for part in snake.split("_"))
    return f"_{camel}" if snake.startswith("_") else camel


def availability_macro(fn: NativeFunction) -> str:
    return f"{unambiguous_name(fn.func)}_view_func".upper() + "_AVAILABLE"


@attrs.frozen
class Captured:
    """One argument the view func keeps."""

    name: str
    param: str
    member_type: str
    init: str
    symint: bool
    tensor: bool
    #: ``list``, ``optional`` or ``single``: how it counts in the state vectors.
    shape: str


def _captured(arg: Argument, conv: Conventions) -> Captured:
    ctype = argument_type(arg.type, mutable=arg.is_write, symint=True, conv=conv)
    param = f"{ctype} {arg.name}"
    stripped = str(C.strip_reference(ctype))
    owning = _OWNING.get(stripped)
    if owning is not None:
        init = (
            f"{arg.name}.vec()"
            if "optional" not in owning
            else (
                f"{arg.name}.has_value() ? ::std::make_optional({arg.name}->vec()) : ::std::nullopt"
            )
        )
        member = owning
    else:
        member, init = stripped, arg.name
    if list_like(arg.type) is not None:
        shape = "list"
    elif "optional" in member:
        shape = "optional"
    else:
        shape = "single"
    return Captured(
        name=arg.name,
        param=param,
        member_type=member,
        init=init,
        symint=is_like(arg.type, BaseTy.SymInt),
        tensor=is_like(arg.type, BaseTy.Tensor),
        shape=shape,
    )


@attrs.frozen
class ViewFuncView:
    name: str
    macro: str
    root: str
    op: str
    captured: tuple[Captured, ...]
    multi_output: bool

    @property
    def constructor_params(self) -> str:
        params = [c.param for c in self.captured]
        if self.multi_output:
            params.append("int64_t view_idx")
        return ", ".join(params)

    @property
    def initializers(self) -> str:
        inits = [f"{c.name}({c.init})" for c in self.captured]
        if self.multi_output:
            inits.append("view_idx(view_idx)")
        return f" : {', '.join(inits)}" if inits else ""

    @property
    def members(self) -> tuple[str, ...]:
        lines = [f"{c.member_type} {c.name};" for c in self.captured]
        if self.multi_output:
            lines.append("int64_t view_idx;")
        return tuple(lines)

    @property
    def clone_args(self) -> str:
        names = [c.name for c in self.captured]
        if self.multi_output:
            names.append("view_idx")
        return ", ".join(names)

    @property
    def call(self) -> str:
        args = ", ".join(["input_base", *(c.name for c in self.captured)])
        suffix = "[view_idx]" if self.multi_output else ""
        return f"at::_ops::{self.op}::call({args}){suffix}"

    @property
    def symints(self) -> tuple[Captured, ...]:
        return tuple(c for c in self.captured if c.symint)

    @property
    def tensors(self) -> tuple[Captured, ...]:
        return tuple(c for c in self.captured if c.tensor)


def count_expr(items: tuple[Captured, ...]) -> str:
    parts = []
    for c in items:
        if c.shape == "list":
            parts.append(f"{c.name}.size()")
        elif c.shape == "optional":
            parts.append(f"({c.name}.has_value() ? 1 : 0)")
        else:
            parts.append("1")
    return " + ".join(parts) if parts else "0"


def view_func_plans(plans: tuple[OperatorPlan, ...]) -> tuple[OperatorPlan, ...]:
    return tuple(
        p
        for p in plans
        if p.has_generated_autograd and p.view_of is not None and not p.modifies_arguments
    )


def view_func_view(plan: OperatorPlan) -> ViewFuncView:
    fn = plan.fn
    conv = Conventions.of(fn)
    args = fn.func.arguments.flat_all[1:]
    ret = fn.func.returns[0].type
    return ViewFuncView(
        name=view_func_name(fn),
        macro=availability_macro(fn),
        root=plan.root_name,
        op=unambiguous_name(fn.func),
        captured=tuple(_captured(a, conv) for a in args),
        multi_output=isinstance(ret, ListType),
    )


@attrs.frozen
class ViewFuncsFileView:
    funcs: tuple[ViewFuncView, ...]

    def count(self, items: tuple[Captured, ...]) -> str:
        return count_expr(items)


def view_funcs_files(
    templates: Templates, plans: tuple[OperatorPlan, ...], sources: Provenance, directory: str
) -> Iterator[GeneratedFile]:
    view = ViewFuncsFileView(tuple(view_func_view(p) for p in view_func_plans(plans)))
    for name in ("ViewFuncs.h", "ViewFuncs.cpp"):
        yield GeneratedFile(
            f"{directory}/{name}", templates.render(f"{name}.mako", view, sources=sources)
        )
