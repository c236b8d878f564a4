"""Wrappers of structured kernels: an output-allocating class per member kind.

A structured operator's backend kernel is a class ``structured_<kernel>``
(deriving from the shared ``at::meta::structured_<op>``) whose ``meta()``
computes the output's shape and whose ``impl()`` fills it.  The class does
not allocate: ``meta()`` calls the virtual ``set_output_raw_strided`` (or
``set_output_strided``), and the registration file supplies one final
subclass per member of the group deciding what that means:

* *functional*: allocate a fresh output (``create_out``);
* *out=*: resize the user's tensor to the computed shape (``resize_out``),
  and where the kernel asked for strides the tensor does not have, compute
  into a temporary *proxy* copied back afterwards (``maybe_create_proxy``);
* *in-place*: check that ``self`` already has the computed shape, dtype and
  device (``check_inplace``), with the same proxy rule.

Keys whose tensors live on a device also keep a device guard in the class
and move it to the output's device when the first output is set.  For
``Meta`` the wrapper stops after ``meta()`` (the outputs are meta tensors of
the right shape); for ``CompositeExplicitAutogradNonFunctional`` it calls the
out= operator through the dispatcher instead of an ``impl()``.
"""

from __future__ import annotations

from schemac.backends.aten.registrations.cpp import block, call
from schemac.backends.aten.registrations.keys import KeyTraits
from schemac.backends.aten.registrations.plan import StructuredGroup, Wrapper
from schemac.backends.aten.registrations.translate import call_arguments, shared_call_arguments
from schemac.backends.aten.registrations.wrappers import device_check
from schemac.backends.aten.signatures import Signature, StructuredMeta
from schemac.backends.aten.signatures import cxx_types as C
from schemac.backends.aten.signatures.table import ViewTable
from schemac.ir.native import NativeFunction
from schemac.ir.schema import SchemaKind

_OUTPUT_REF = C.MutRef(C.TENSOR)
_SET_OUTPUT_PARAMS = (
    "int64_t output_idx, IntArrayRef sizes, IntArrayRef strides, TensorOptions options"
)
_MOVE_GUARD = (
    "auto current_device = guard_.current_device();",
    "if (C10_UNLIKELY(current_device.has_value())) {",
    "  TORCH_INTERNAL_ASSERT(*current_device == options.device(),",
    '    "structured kernels don\'t support multi-device outputs");',
    "} else {",
    "  guard_.reset_device(options.device());",
    "}",
)
_STORE_PROXY = (
    "auto maybe_proxy = maybe_create_proxy(out, sizes, strides, options);",
    "if (C10_UNLIKELY(maybe_proxy.has_value())) {",
    "    proxy_outputs_[output_idx] = std::move(maybe_proxy).value();",
    "}",
)


def _class_names(
    group: StructuredGroup, meta: StructuredMeta, kind: SchemaKind, traits: KeyTraits
) -> tuple[str, str]:
    """(class name, parent class) of the wrapper class for one member kind."""
    if group.kernel is None:
        flavour = "meta" if traits.is_meta else "default_backend"
        return f"{meta.class_name}_{flavour}_{kind.name}", meta.qualified_class_name
    kernel = group.kernel
    return f"structured_{kernel.name}_{kind.name}", f"{kernel.namespace}::structured_{kernel.name}"


_PROPAGATE_NAMES = (
    "if (!names.empty()) {",
    "  namedinference::propagate_names(outputs_[output_idx], names);",
    "}",
)


def _set_output(
    kind: SchemaKind, traits: KeyTraits, with_proxy: bool, parent: str, call_super: bool
) -> list[str]:
    body: list[str] = list(_MOVE_GUARD) if traits.guarded_outputs else []
    if kind is SchemaKind.functional:
        body.append("outputs_[output_idx] = create_out(sizes, strides, options);")
    else:
        body.append("const auto& out = outputs_[output_idx].get();")
        if kind is SchemaKind.inplace:
            body.append("check_inplace(out, sizes, options);")
        else:
            body.append("resize_out(out, sizes, strides, options);")
        if with_proxy:
            body.extend(_STORE_PROXY)
    names = ""
    if traits.output_names:
        body.extend(_PROPAGATE_NAMES)
        names = ", names"
    if call_super:
        # After the output is stored, so the parent can read it with maybe_get_output().
        body.append(
            f"{parent}::set_output_raw_strided(output_idx, sizes, strides, options{names});"
        )
    return body


def structured_class(
    f: NativeFunction, group: StructuredGroup, traits: KeyTraits, meta: StructuredMeta
) -> tuple[str, str]:
    """(the class definition, its name) for ``f``'s member kind; ``meta`` is the group's."""
    kind = f.func.kind()
    if kind not in (SchemaKind.functional, SchemaKind.inplace, SchemaKind.out):
        raise ValueError(f"{f.func.name}: {kind.value} operators cannot be structured")
    name, parent = _class_names(group, meta, kind, traits)
    outputs = _output_count(f, kind)
    call_super = group.out.structured_inherits is not None
    members: list[str] = []
    if kind is SchemaKind.inplace:
        members.append(name + "(Tensor& self) : outputs_{std::ref(self)} {}")
    elif kind is SchemaKind.out:
        params = ", ".join(f"Tensor& out{i}" for i in range(outputs))
        refs = ", ".join(f"std::ref(out{i})" for i in range(outputs))
        members.append(f"{name}({params}) : outputs_" + "{ " + refs + " } {}")
    for suffix, with_proxy in (("strided", True), ("raw_strided", False)):
        params = _SET_OUTPUT_PARAMS + (", DimnameList names" if traits.output_names else "")
        head = f"void set_output_{suffix}({params}) override"
        members.append(block(head, _set_output(kind, traits, with_proxy, parent, call_super)))
    if kind is SchemaKind.functional:
        current = "outputs_[output_idx]"
        storage = [f"std::array<Tensor, {outputs}> outputs_;"]
    else:
        current = (
            "proxy_outputs_[output_idx].has_value() ? *proxy_outputs_[output_idx]"
            " : outputs_[output_idx].get()"
        )
        storage = [
            f"std::array<std::reference_wrapper<Tensor>, {outputs}> outputs_;",
            f"std::array<::std::optional<Tensor>, {outputs}> proxy_outputs_;",
        ]
    getter = "const Tensor& maybe_get_output(int64_t output_idx) override"
    members.append(block(getter, [f"return {current};"]))
    members.extend(storage)
    if traits.structured_guard is not None:
        members.append(traits.structured_guard)
    return block(f"struct {name} final : public {parent}", members, tail=";"), name


def structured_wrapper_definition(
    wrapper: Wrapper, traits: KeyTraits, sig: Signature, views: ViewTable
) -> str:
    """The class and wrapper function whose signature is ``sig`` (``wrapper_signature``)."""
    f, group = wrapper.function, wrapper.structured
    if group is None:
        raise ValueError(f"{f.func.name} planned as structured without a group")
    kind = f.func.kind()
    meta = views.structured_meta(group.functional, group.out)
    class_text, class_name = structured_class(f, group, traits, meta)
    body: list[str] = device_check(f, sig.name) if traits.device_guard else []
    if kind is SchemaKind.functional:
        body.append(f"{class_name} op;")
    elif kind is SchemaKind.inplace:
        body.append(f"{class_name} op(self);")
    else:
        body.append(f"{class_name} op({', '.join(a.name for a in f.func.arguments.out)});")

    meta_args = ", ".join(shared_call_arguments(views, sig.params, meta.meta.params))
    extra: dict[str, tuple[str, C.CType]] = {}
    if meta.precomputed:
        body.append(f"auto precompute = op.meta({meta_args});")
        body.append("(void)precompute;")
        extra.update({p.name: (f"precompute.{p.name}", p.type) for p in meta.precomputed})
    else:
        body.append(f"op.meta({meta_args});")
    for i, out_arg in enumerate(group.out.func.arguments.out):
        expr = f"op.maybe_get_output({i})" if kind is SchemaKind.out else f"op.outputs_[{i}]"
        extra[out_arg.name] = (expr, _OUTPUT_REF)

    if traits.is_composite_non_functional:
        out_sig = views.cpp_group(group.out).most_faithful
        args = call_arguments(sig.params, out_sig.params, extra=extra)
        body.append(call(f"at::{out_sig.name}", args) + ";")
    elif not traits.is_meta:
        if group.kernel is None:
            raise ValueError(f"{f.func.name}: structured wrapper without a kernel")
        impl = views.structured_impl(meta, group.out, group.kernel.name)
        body.append(
            call("op.impl", call_arguments(sig.params, impl.impl.params, extra=extra)) + ";"
        )

    returns = len(f.func.returns)
    if kind is not SchemaKind.functional:
        body.extend(
            f"if (op.proxy_outputs_[{i}].has_value())"
            f" op.outputs_[{i}].get().copy_(*op.proxy_outputs_[{i}]);"
            for i in range(_output_count(f, kind))
        )
    if returns:
        body.append(f"return {_returned(f, kind, returns)};")
    return "\n".join([class_text, block(sig.defn(), body)])


def _output_count(f: NativeFunction, kind: SchemaKind) -> int:
    """The tensors a member writes: its returns, or for one returning nothing
    (Note [Mutating operators may return nothing]) its out arguments or ``self``."""
    if f.func.returns or kind is SchemaKind.functional:
        return len(f.func.returns)
    return 1 if kind is SchemaKind.inplace else len(f.func.arguments.out)


def _returned(f: NativeFunction, kind: SchemaKind, returns: int) -> str:
    if kind is SchemaKind.functional:
        if returns == 1:
            return "std::move(op.outputs_[0])"
        return (
            "std::make_tuple("
            + ", ".join(f"std::move(op.outputs_[{i}])" for i in range(returns))
            + ")"
        )
    if kind is SchemaKind.inplace:
        return "self"
    outs = [a.name for a in f.func.arguments.out]
    return outs[0] if returns == 1 else f"std::forward_as_tuple({', '.join(outs)})"
