"""The autograd half of ``OUT/<ns>/register/<root>.cpp``.

From the derivative information the ``match-derivatives`` pass computed
(:mod:`schemac.ir.autograd`), as ATen's VariableType does, but with only
torch's installed headers and in the library's own namespace
(``<ns>::autograd``):

* a backward node per derivatives.yaml entry: a ``TraceableFunction`` holding
  the saved inputs and outputs (``SavedVariable`` for tensors, values for the
  rest) whose ``apply`` evaluates the formulas.  Formulas are C++ as in
  PyTorch's derivatives.yaml: ATen's helpers
  (``torch::autograd::generated::details``) and the library's own typed API
  are in scope, so they may call the library's operators unqualified;
* an Autograd-key kernel per operator: creates the node when an input
  requires grad, saves what the formulas need, redispatches below autograd,
  and attaches the node to the differentiable outputs (``rebase_history``
  for in-place operators).  Outputs marked False in
  ``output_differentiability`` get no history;
* an ADInplaceOrView kernel for in-place, out= and view operators: bumps the
  version counter of written tensors, or marks the result as a view of its
  base;
* operators without a derivatives entry get PyTorch's not-implemented
  fallbacks, so asking for their gradient raises a clear error instead of
  PyTorch's "autograd kernel was not registered" warning and a silently
  detached result.  Operators with only a CompositeImplicitAutograd kernel
  need nothing: autograd sees through them.

Forward-mode formulas (``result: ...``) are planned by the autograd backend's
:func:`~schemac.backends.autograd.forward_ad.forward_plan` and printed for
functional operators with Tensor outputs; every other kernel with
differentiable inputs refuses a tangent (TORCH_CHECK_NOT_IMPLEMENTED) rather
than dropping it.
"""

from __future__ import annotations

import re

import attrs

from schemac.backends.aten.registrations.cpp import block, call
from schemac.backends.aten.signatures import Signature
from schemac.backends.extension.forward import forward_flags, forward_grad, kernel_forward_plan
from schemac.backends.extension.library import ExtensionLibrary, Family
from schemac.backends.extension.typed_api import handle_name
from schemac.backends.extension.views import ExtensionViews
from schemac.diagnostics import Diagnostic, InputError
from schemac.ir.autograd import (
    DEFAULT_AUTOGRAD_KEY,
    DifferentiabilityInfo,
    SavedAttribute,
    SavedProperty,
)
from schemac.ir.native import NativeFunction
from schemac.ir.schema import SchemaKind
from schemac.ir.types import BaseTy, BaseType, ListType, OptionalType, Type, is_like

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")

_VALUE_TYPES = {
    BaseTy.Scalar: "at::Scalar",
    BaseTy.int: "int64_t",
    BaseTy.SymInt: "c10::SymInt",
    BaseTy.float: "double",
    BaseTy.bool: "bool",
    BaseTy.str: "std::string",
    BaseTy.ScalarType: "at::ScalarType",
    BaseTy.Layout: "at::Layout",
    BaseTy.Device: "at::Device",
    BaseTy.MemoryFormat: "at::MemoryFormat",
}
_PROPERTY_TYPES = {
    SavedProperty.sym_sizes: ("std::vector<c10::SymInt>", ".vec()"),
    SavedProperty.scalar_type: ("at::ScalarType", ""),
    SavedProperty.options: ("at::TensorOptions", ""),
    SavedProperty.dim: ("int64_t", ""),
    SavedProperty.sym_numel: ("c10::SymInt", ""),
    SavedProperty.layout: ("at::Layout", ""),
}


@attrs.frozen
class FamilyAutograd:
    nodes: tuple[str, ...]
    kernels: tuple[str, ...]
    #: ``m.impl`` lines for the Autograd and ADInplaceOrView keys.
    autograd_registrations: tuple[str, ...]
    inplace_or_view_registrations: tuple[str, ...]


@attrs.frozen
class _Saved:
    """One member of a node: its declaration, how it is stored and unpacked."""

    attribute: SavedAttribute
    is_output: bool
    cpp_type: str | None  # None: a SavedVariable named ``<name>_``
    suffix: str = ""

    @property
    def member(self) -> str:
        return f"{self.attribute.name}_" if self.cpp_type is None else self.attribute.name

    def declaration(self) -> str:
        if self.cpp_type is None:
            return f"torch::autograd::SavedVariable {self.member};"
        return f"{self.cpp_type} {self.member};"

    def store(self, expr: str | None = None) -> str:
        value = self.attribute.expr if expr is None else expr
        if self.cpp_type is None:
            flag = "true" if self.is_output else "false"
            return f"grad_fn->{self.member} = torch::autograd::SavedVariable({value}, {flag});"
        return f"grad_fn->{self.member} = {value}{self.suffix};"

    def unpack(self) -> str | None:
        if self.cpp_type is not None:
            return None
        source = "getptr()" if self.is_output else ""
        return f"auto {self.attribute.name} = {self.member}.unpack({source});"


def family_autograd(
    library: ExtensionLibrary, family: Family, views: ExtensionViews
) -> FamilyAutograd:
    nodes: dict[str, str] = {}
    kernels: list[str] = []
    autograd_lines: list[str] = []
    view_lines: list[str] = []
    problems: list[Diagnostic] = []
    for f in family.functions:
        if not _needs_autograd_kernel(library, f):
            continue
        literal = f'"{f.func.name}"'
        kind = f.func.kind()
        info = _info(library, f)
        writes = kind in (SchemaKind.inplace, SchemaKind.out, SchemaKind.mutable)
        is_view = _is_view(f)
        if info is None or info.node is None or not info.has_derivatives:
            autograd_lines.append(
                f"m.impl({literal}, torch::autograd::autogradNotImplementedFallback());"
            )
            if writes or is_view:
                view_lines.append(
                    f"m.impl({literal},"
                    " torch::autograd::autogradNotImplementedInplaceOrViewFallback());"
                )
            continue
        saved = _saved_members(f, info, problems)
        if kind is not SchemaKind.out and info.node not in nodes:
            nodes[info.node] = _node(library, info, saved)
        name = f"{f.func.name.unambiguous_name}_autograd"
        kernels.append(_autograd_kernel(library, f, info, saved, views, name))
        autograd_lines.append(f"m.impl({literal}, TORCH_FN({name}));")
        if writes or is_view:
            view_name = f"{f.func.name.unambiguous_name}_inplace_or_view"
            kernels.append(_inplace_or_view_kernel(library, f, views, view_name))
            view_lines.append(f"m.impl({literal}, TORCH_FN({view_name}));")
    if problems:
        raise InputError(problems)
    return FamilyAutograd(
        tuple(nodes.values()), tuple(kernels), tuple(autograd_lines), tuple(view_lines)
    )


def _needs_autograd_kernel(library: ExtensionLibrary, f: NativeFunction) -> bool:
    resolution = library.module.resolutions.get(f.func.name)
    return resolution is not None and resolution.is_abstract


def _info(library: ExtensionLibrary, f: NativeFunction) -> DifferentiabilityInfo | None:
    found = library.module.autograd.for_function(f.func.name)
    return None if found is None else found.info_for(DEFAULT_AUTOGRAD_KEY)


def _is_view(f: NativeFunction) -> bool:
    return f.func.kind() is SchemaKind.functional and any(
        r.annotation is not None and not r.annotation.is_write for r in f.func.returns
    )


def _saved_members(
    f: NativeFunction, info: DifferentiabilityInfo, problems: list[Diagnostic]
) -> tuple[_Saved, ...]:
    members: dict[str, _Saved] = {}
    for attribute, is_output in (
        *((a, False) for a in info.all_saved_inputs),
        *((a, True) for a in info.all_saved_outputs),
    ):
        found = _saved(attribute, is_output)
        if found is None:
            problems.append(
                Diagnostic(
                    info.span,
                    f"the extension target cannot save '{attribute.expr}' for a backward node",
                    "use the whole tensor or its sym_sizes() in the formula",
                )
            )
            continue
        members.setdefault(attribute.name, found)
    return tuple(members.values())


def _saved(attribute: SavedAttribute, is_output: bool) -> _Saved | None:
    ty = attribute.source_type
    if attribute.prop is not SavedProperty.value:
        spelled = _PROPERTY_TYPES.get(attribute.prop)
        if spelled is None:
            return None
        return _Saved(attribute, is_output, spelled[0], spelled[1])
    if ty is None:
        return _Saved(attribute, is_output, "at::TensorOptions")
    if is_like(ty, BaseTy.Tensor):
        if isinstance(ty, ListType):
            return None
        return _Saved(attribute, is_output, None)
    spelled_value = _value_type(ty)
    if spelled_value is None:
        return None
    suffix = ".vec()" if isinstance(ty, ListType) else ""
    return _Saved(attribute, is_output, spelled_value, suffix)


def _value_type(ty: Type) -> str | None:
    if isinstance(ty, BaseType):
        return _VALUE_TYPES.get(ty.name)
    if isinstance(ty, ListType):
        elem = _value_type(ty.elem)
        return None if elem is None else f"std::vector<{elem}>"
    if isinstance(ty, OptionalType) and not isinstance(ty.elem, ListType):
        elem = _value_type(ty.elem)
        return None if elem is None else f"::std::optional<{elem}>"
    return None


def _node(library: ExtensionLibrary, info: DifferentiabilityInfo, saved: tuple[_Saved, ...]) -> str:
    name = info.node or ""
    qualified = f"{library.namespace}::{name}"
    releases = [f"{s.member}.reset_data();" for s in saved if s.cpp_type is None]
    members = [
        "using TraceableFunction::TraceableFunction;",
        "torch::autograd::variable_list apply(torch::autograd::variable_list&& grads) override;",
        f'std::string name() const override {{ return "{qualified}"; }}',
        block(
            "void release_variables() override",
            ["std::lock_guard<std::mutex> lock(mutex_);", *releases],
        ),
        *(s.declaration() for s in saved),
    ]
    declaration = block(
        f"struct {name} : public torch::autograd::TraceableFunction", members, tail=";"
    )
    return declaration + "\n\n" + _apply(info, saved)


def _apply(info: DifferentiabilityInfo, saved: tuple[_Saved, ...]) -> str:
    name = info.node or ""
    body = ["std::lock_guard<std::mutex> lock(mutex_);", "IndexRangeGenerator gen;"]
    for arg in info.args_with_derivatives:
        body.append(f"auto {arg.name}_ix = gen.range(1);")
    body.append("variable_list grad_inputs(gen.size());")
    body.append("const auto& grad = grads[0];")
    body.append("(void)grad;")
    for i, named in enumerate(info.available_named_gradients):
        body.append(f"const auto& {named} = grads[{i}];")
    body.extend(text for s in saved if (text := s.unpack()) is not None)
    body.append("bool any_grad_defined = any_variable_defined(grads);")
    for derivative in info.derivatives:
        wanted = ", ".join(f"{v}_ix" for v in derivative.var_names)
        if len(derivative.var_names) == 1:
            var = derivative.var_names[0]
            inner = [
                f"auto grad_result = any_grad_defined ? ({derivative.formula}) : at::Tensor();",
                f"copy_range(grad_inputs, {var}_ix, grad_result);",
            ]
        else:
            mask = ", ".join(
                f"task_should_compute_output({{ {v}_ix }})" for v in derivative.var_names
            )
            count = len(derivative.var_names)
            inner = [
                f"auto grad_input_mask = std::array<bool, {count}>{{ {mask} }};",
                "(void)grad_input_mask;",
                f"auto grad_result = {derivative.formula};",
                *(
                    block(
                        f"if (task_should_compute_output({{ {v}_ix }}))",
                        [f"copy_range(grad_inputs, {v}_ix, std::get<{i}>(grad_result));"],
                    )
                    for i, v in enumerate(derivative.var_names)
                ),
            ]
        body.append(block(f"if (task_should_compute_output({{ {wanted} }}))", inner))
    body.append("return grad_inputs;")
    return block(f"variable_list {name}::apply(variable_list&& grads)", body)


def _kernel_signature(views: ExtensionViews, f: NativeFunction, name: str) -> tuple[Signature, str]:
    sig = views.dispatcher(f)
    return sig, sig.defn(name, redispatch=True)


def _differentiable_inputs(info: DifferentiabilityInfo) -> str:
    return ", ".join(a.name for a in info.args_with_derivatives)


def _autograd_kernel(
    library: ExtensionLibrary,
    f: NativeFunction,
    info: DifferentiabilityInfo,
    saved: tuple[_Saved, ...],
    views: ExtensionViews,
    name: str,
) -> str:
    sig, head = _kernel_signature(views, f, name)
    kind = f.func.kind()
    args = ["dispatchKeySet & c10::after_autograd_keyset", *(p.name for p in sig.params)]
    redispatch = call(f"{handle_name(library, f)}::redispatch", args)
    inputs = _differentiable_inputs(info)
    body = [f"[[maybe_unused]] auto _any_requires_grad = compute_requires_grad({inputs});"]
    forward = kernel_forward_plan(library, f, info)
    body.extend(forward_flags(forward))
    if kind is SchemaKind.out:
        op = str(f.func.name.name)
        outs = ", ".join(a.name for a in f.func.arguments.out)
        body += [
            f'if (_any_requires_grad) throw_error_out_requires_grad("{op}");',
            f'if (compute_requires_grad({outs})) throw_error_out_requires_grad("{op}");',
            block("", ["at::AutoDispatchBelowAutograd guard;", f"{redispatch};"]).lstrip(),
        ]
        return block(head, body)
    inplace = kind in (SchemaKind.inplace, SchemaKind.mutable)
    if inplace:
        body.append("check_inplace(self, _any_requires_grad);")
    node = info.node or ""
    creation = [
        f"grad_fn = c10::make_intrusive<{node}>();",
        f"grad_fn->set_next_edges(collect_next_edges({inputs}));",
    ]
    for s in saved:
        if s.is_output:
            continue
        if inplace and s.cpp_type is None and s.attribute.source == "self":
            creation.append(s.store("self.clone()"))  # the value before it is overwritten
        else:
            creation.append(s.store())
    body += [f"c10::intrusive_ptr<{node}> grad_fn;", block("if (_any_requires_grad)", creation)]
    returns = f.func.returns
    if inplace:
        body.append(block("", ["at::AutoDispatchBelowAutograd guard;", f"{redispatch};"]).lstrip())
        history = [
            "rebase_history(flatten_tensor_args(self), grad_fn);",
            *(s.store("self") for s in saved if s.is_output),
        ]
        body.append(block("if (grad_fn)", history))
        if returns:
            body.append("return self;")
        return block(head, body)
    body.append(
        block(
            "auto _tmp = ([&]()",
            ["at::AutoDispatchBelowADInplaceOrView guard;", f"return {redispatch};"],
            tail=")();",
        )
    )
    names = [
        r.name or ("result" if len(returns) == 1 else f"result{i}") for i, r in enumerate(returns)
    ]
    if len(returns) == 1:
        body.append(f"auto {names[0]} = std::move(_tmp);")
    else:
        body.append(f"auto [{', '.join(names)}] = std::move(_tmp);")
    differentiable = info.output_differentiability or (True,) * len(returns)
    flows = [n for n, d in zip(names, differentiable, strict=False) if d]
    history = [f"set_history(flatten_tensor_args({', '.join(flows)}), grad_fn);"]
    history.extend(s.store() for s in saved if s.is_output)
    body.append(block("if (grad_fn)", history))
    body.extend(line for g in forward.grads for line in forward_grad(g))
    if len(returns) == 1:
        body.append(f"return {names[0]};")
    else:
        body.append(f"return std::make_tuple({', '.join(f'std::move({n})' for n in names)});")
    return block(head, body)


def _inplace_or_view_kernel(
    library: ExtensionLibrary, f: NativeFunction, views: ExtensionViews, name: str
) -> str:
    sig, head = _kernel_signature(views, f, name)
    args = ["dispatchKeySet & c10::after_ADInplaceOrView_keyset", *(p.name for p in sig.params)]
    redispatch = call(f"{handle_name(library, f)}::redispatch", args)
    if _is_view(f):
        base = f.func.arguments.positional[0].name
        body = [
            block(
                "auto _tmp = ([&]()",
                ["at::AutoDispatchBelowADInplaceOrView guard;", f"return {redispatch};"],
                tail=")();",
            ),
            "auto creation_meta = c10::InferenceMode::is_enabled()",
            "    ? torch::autograd::CreationMeta::INFERENCE_MODE",
            "    : (at::GradMode::is_enabled() ? torch::autograd::CreationMeta::DEFAULT",
            "                                  : torch::autograd::CreationMeta::NO_GRAD_MODE);",
            f"return as_view({base}, _tmp, true, true, nullptr, nullptr, creation_meta);",
        ]
        return block(head, body)
    written = [a.name for a in f.func.arguments.flat_all if a.is_write]
    body = [
        block("", ["at::AutoDispatchBelowADInplaceOrView guard;", f"{redispatch};"]).lstrip(),
        *(f"increment_version({w});" for w in written),
    ]
    if f.func.returns:
        body.append(
            f"return {written[0]};"
            if len(written) == 1
            else f"return std::forward_as_tuple({', '.join(written)});"
        )
    return block(head, body)


def formula_words(library: ExtensionLibrary, family: Family) -> frozenset[str]:
    """Identifiers the family's backward formulas use (to include the typed API they call)."""
    words: set[str] = set()
    for f in family.functions:
        info = _info(library, f)
        if info is not None:
            for derivative in info.derivatives:
                words.update(_IDENTIFIER.findall(derivative.formula))
    return frozenset(words)
