"""``ATen/CompositeViewCopyKernels.cpp``: kernels schemac writes in full.

Three kinds of operator have no hand-written kernel, so their kernels are
generated here, in ``at::native``:

* ``{view}_copy`` operators (the non-aliasing twin of a view, for
  functionalization): run the view and clone its result contiguously.
  ``view_copy`` itself uses ``reshape`` when a view is impossible;
* functional variants added by ``autogen:``: clone the inputs the in-place
  (or mutable) variant would write, call that variant, return the clones;
* out= variants added by ``autogen:``: call the functional variant, resize
  the out arguments and copy into them.

Each kernel is registered like any other, through the dispatch table the
resolution pass gave the generated operator (CompositeExplicitAutograd or
...NonFunctional); this file only defines them.

Each kernel is a fragment (Note [Fragment reuse] in
:mod:`schemac.backends.reuse`): the module is searched here for the functions
(and kernel) it is made of, which are its inputs, and the render reads only those.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

import attrs

from schemac.backends.aten.registrations.cpp import block, call
from schemac.backends.aten.registrations.translate import call_arguments
from schemac.backends.aten.signatures import (
    cxx_types as C,
)
from schemac.backends.aten.signatures import (
    dispatcher_signature,
    has_symint,
    native_signature,
)
from schemac.backends.aten.signatures.naming import root_name, unambiguous_name
from schemac.backends.output import GeneratedFile
from schemac.backends.registry import EmitOptions
from schemac.backends.reuse import Fragments
from schemac.backends.templating import Templates, native_sources
from schemac.ir.dispatch import COMPOSITE_EXPLICIT_NON_FUNCTIONAL
from schemac.ir.groups import VariantGroup, ViewGroup
from schemac.ir.module import Module
from schemac.ir.native import NativeFunction
from schemac.ir.resolved import Kernel
from schemac.ir.types import TENSOR, ListType

PACKAGE = "schemac.backends.aten.registrations"
_CLONE = "clone(/*memory_format=*/at::MemoryFormat::Contiguous)"
_VIEW_COPY_BODY = (
    "c10::SymDimVector shape = infer_size_dv(size, self.sym_numel());",
    "if (!at::detail::computeStride(self.sym_sizes(), self.sym_strides(), shape).has_value()) {",
    "  return self.reshape_symint(size);",
    "} else {",
    "  auto output = at::_ops::view::call(self, size);",
    f"  return output.{_CLONE};",
    "}",
)


@attrs.frozen
class ViewCopyFileView:
    headers: tuple[str, ...]
    definitions: tuple[str, ...]


def _view_copy_kernel(module: Module, group: ViewGroup, fragments: Fragments) -> str | None:
    if group.view_copy is None:
        return None
    view, copy = module.find_function(group.view), module.find_function(group.view_copy)
    if view is None or copy is None:
        return None
    if copy.func.name.name.base != f"{view.func.name.name}_copy":
        return None  # a differently named twin (slice_scatter) has its own kernel
    kernel = module.resolutions[copy.func.name].dispatch.get(COMPOSITE_EXPLICIT_NON_FUNCTIONAL)
    if kernel is None:
        return None
    return fragments.text(_render_view_copy, (view, copy, kernel)) or None


def _render_view_copy(context: None, inputs: tuple[NativeFunction, NativeFunction, Kernel]) -> str:
    """The ``{view}_copy`` kernel, or "" when the view's return cannot be cloned."""
    view, copy, kernel = inputs
    sig = native_signature(copy, kernel=kernel.name)
    if str(copy.func.name) == "view_copy":
        return block(sig.defn(), _VIEW_COPY_BODY)
    args = call_arguments(sig.params, dispatcher_signature(view).params)
    body = [f"auto output = {call(f'at::_ops::{unambiguous_name(view.func)}::call', args)};"]
    returned = view.func.returns[0].type
    if returned == TENSOR:
        body.append(f"return output.{_CLONE};")
    elif returned == ListType(TENSOR):
        body += [
            f"{sig.returns} out_clone;",
            "for (const auto i : c10::irange(output.size())) {",
            f"  out_clone.push_back(output[i].{_CLONE});",
            "}",
            "return out_clone;",
        ]
    else:
        return ""
    return block(sig.defn(), body)


def _returning(returns: C.CType, count: int, names: list[str]) -> str:
    if count == 0:
        return ""
    if count == 1:
        return f"return {names[0]};"
    return f"return {returns}({', '.join(names)});"


def _functional_kernel(module: Module, group: VariantGroup, fragments: Fragments) -> str | None:
    functional = module.find_function(group.functional)
    if functional is None or not functional.generated:
        return None
    targets = (module.find_function(n) for n in (group.inplace, group.mutable) if n is not None)
    target = next((f for f in targets if f is not None and not f.generated), None)
    if target is None:
        return None
    out = module.find_function(group.out)
    return fragments.text(_render_functional, (functional, target, out))


def _render_functional(
    context: None, inputs: tuple[NativeFunction, NativeFunction, NativeFunction | None]
) -> str:
    """The generated functional variant calling ``target`` (in-place or mutable) on clones."""
    functional, target, out = inputs
    sig = dispatcher_signature(functional)
    target_sig = dispatcher_signature(target)
    clones: list[str] = []
    extra: dict[str, tuple[str, C.CType]] = {}
    pairs = zip(functional.func.arguments.flat_all, target.func.arguments.flat_all, strict=False)
    for ours, theirs in pairs:
        if theirs.is_write:
            clones.append(f"auto {ours.name}_clone = clone_arg({ours.name});")
            param = next(p for p in sig.params if p.source == ours.name)
            extra[theirs.name] = (f"{ours.name}_clone", param.type)
    args = call_arguments(sig.params, target_sig.params, extra=extra)
    result = "auto output = " if target.func.returns else ""
    inner = target.func.aliased_return_names()
    fresh = [
        (f"std::get<{i}>(output)" if len(inner) > 1 else "output")
        for i, alias in enumerate(inner)
        if alias is None
    ]
    names = fresh + [value[0] for value in extra.values()]
    symint = out is not None and has_symint(out.func)
    name = sig.name + ("_symint" if symint else "")
    body = [*clones, result + call(f"at::_ops::{unambiguous_name(target.func)}::call", args) + ";"]
    body.append(_returning(sig.returns, len(functional.func.returns), names))
    return block(sig.defn(name), [line for line in body if line])


def _out_kernel(module: Module, group: VariantGroup, fragments: Fragments) -> str | None:
    out, functional = module.find_function(group.out), module.find_function(group.functional)
    if out is None or functional is None or not out.generated:
        return None
    return fragments.text(_render_out, (out, functional))


def _render_out(context: None, inputs: tuple[NativeFunction, NativeFunction]) -> str:
    """The generated out= variant: the functional call, copied into the out arguments."""
    out, functional = inputs
    sig = dispatcher_signature(out)
    extra: dict[str, tuple[str, C.CType]] = {}
    if functional.func.arguments.tensor_options is not None and out.func.arguments.out:
        # A factory's out= variant has no options: the output tensor's own are used.
        first = out.func.arguments.out[0].name
        extra = {
            "dtype": (f"{first}.scalar_type()", C.SCALAR_TYPE),
            "layout": (f"{first}.layout()", C.LAYOUT),
            "device": (f"{first}.device()", C.DEVICE),
            "pin_memory": ("::std::nullopt", C.Optional(C.BOOL)),
        }
    target = dispatcher_signature(functional).params
    args = call_arguments(sig.params, target, extra=extra)
    several = len(functional.func.returns) != 1
    result = "tmp_output"
    body = [
        f"auto {result} = {call(f'at::_ops::{unambiguous_name(functional.func)}::call', args)};"
    ]
    for i, arg in enumerate(out.func.arguments.out):
        value = f"std::get<{i}>({result})" if several else result
        body += [f"resize_out_helper({arg.name}, {value});", f"copy_arg({arg.name}, {value});"]
    returned = [
        alias if alias is not None else (f"std::get<{i}>({result})" if several else result)
        for i, alias in enumerate(out.func.aliased_return_names())
    ]
    body.append(_returning(sig.returns, len(out.func.returns), returned))
    name = unambiguous_name(out.func) + ("_symint" if has_symint(out.func) else "")
    return block(sig.defn(name), [line for line in body if line])


def _headers(module: Module) -> Iterator[str]:
    def both(f: NativeFunction) -> Iterator[str]:
        yield f"ATen/ops/{root_name(f.func)}_ops.h"
        yield f"ATen/ops/{root_name(f.func)}_native.h"

    for view_group in module.view_groups:
        for name in (view_group.view, view_group.view_copy):
            f = None if name is None else module.find_function(name)
            if f is not None:
                yield from both(f)
    for group in module.groups:
        for name in (group.inplace, group.mutable, group.functional):
            f = None if name is None else module.find_function(name)
            if f is not None and not f.generated:
                yield from both(f)


def view_copy_file_view(module: Module, fragments: Fragments | None = None) -> ViewCopyFileView:
    """``fragments``: where each kernel is printed (the target's; Note [Fragment reuse])."""
    pieces = Fragments() if fragments is None else fragments
    definitions = [_view_copy_kernel(module, g, pieces) for g in module.view_groups]
    definitions += [_functional_kernel(module, g, pieces) for g in module.groups]
    definitions += [_out_kernel(module, g, pieces) for g in module.groups]
    return ViewCopyFileView(
        headers=tuple(sorted(set(_headers(module)))),
        definitions=tuple(d for d in definitions if d is not None),
    )


@attrs.frozen
class ViewCopyBackend:
    name: str = "aten-view-copy-kernels"
    description: str = (
        "CompositeViewCopyKernels.cpp: generated view_copy, functional and out= kernels"
    )
    targets: tuple[str, ...] = ("composite",)

    def emit(self, module: Module, options: EmitOptions) -> Iterable[GeneratedFile]:
        text = Templates(PACKAGE).render(
            "CompositeViewCopyKernels.cpp.mako",
            view_copy_file_view(module, options.fragments),
            sources=native_sources(module),
        )
        return (GeneratedFile("ATen/CompositeViewCopyKernels.cpp", text),)


BACKEND = ViewCopyBackend()
