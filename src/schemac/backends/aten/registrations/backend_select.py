"""``ATen/RegisterBackendSelect.cpp``: the dispatch key of factory functions.

The dispatcher picks a backend from the tensors an operator receives; a
factory (``empty``, ``arange``) receives none, only ``dtype``, ``layout`` and
``device``.  Such operators get a BackendSelect kernel that computes the key
from those (joined with the keys of any tensor arguments, for ``to``-like
operators) and redispatches below BackendSelect.  ``*_like`` and ``new_*``
operators dispatch on their tensor argument and need none.  The signatures
keep symbolic sizes: BackendSelect may route to Meta.
"""

from __future__ import annotations

from collections.abc import Iterable

import attrs

from schemac.backends.aten.registrations.cpp import block
from schemac.backends.aten.registrations.translate import call_arguments
from schemac.backends.aten.registrations.wrappers import is_tensor_like
from schemac.backends.aten.signatures import dispatcher_signature, native_signature
from schemac.backends.aten.signatures.naming import native_name, root_name, unambiguous_name
from schemac.backends.cppmodel import cpp_string_literal
from schemac.backends.output import GeneratedFile
from schemac.backends.registry import EmitOptions
from schemac.backends.templating import Templates, native_sources
from schemac.ir.module import Module
from schemac.ir.native import NativeFunction

PACKAGE = "schemac.backends.aten.registrations"
_KEY_FROM_OPTIONS = "c10::computeDispatchKey(dtype, layout, device)"


@attrs.frozen
class BackendSelectView:
    headers: tuple[str, ...]
    definitions: tuple[str, ...]
    registrations: tuple[str, ...]


def needs_backend_select(f: NativeFunction) -> bool:
    base = str(f.func.name.name)
    if base.endswith("_like") or base.startswith("new_"):
        return False
    return f.func.arguments.tensor_options is not None


def _definition(f: NativeFunction) -> str:
    sig = native_signature(f, symint=True)
    tensors = [a.name for a in f.func.arguments.flat_non_out if is_tensor_like(a)]
    if tensors:
        key_set = [
            f"DispatchKeySet _dk_set = c10::DispatchKeySet({_KEY_FROM_OPTIONS})"
            f" | c10::detail::multi_dispatch_key_set({', '.join(tensors)});",
            "DispatchKeySet _dk_mask = c10::DispatchKeySet(DispatchKeySet::FULL_AFTER,"
            " DispatchKey::BackendSelect);",
            "DispatchKeySet _dk = c10::impl::computeDispatchKeySet(_dk_set, _dk_mask);",
        ]
    else:
        key_set = [f"DispatchKeySet _dk = c10::DispatchKeySet({_KEY_FROM_OPTIONS});"]
    args = call_arguments(sig.params, dispatcher_signature(f).params)
    redispatch = f"return at::_ops::{unambiguous_name(f.func)}::redispatch(_dk, {', '.join(args)});"
    head = f"// {f.namespace}::{f.func}\nC10_ALWAYS_INLINE\n{sig.defn()}"
    return block(head, [*key_set, redispatch])


def backend_select_functions(module: Module) -> tuple[NativeFunction, ...]:
    """The functions that get a BackendSelect kernel, in module order."""
    registered = None if module.selection is None else frozenset(module.selection.selected)
    return tuple(
        f
        for f in module.functions
        if f.namespace == "aten"
        and needs_backend_select(f)
        and (registered is None or f.func.name in registered)
    )


def backend_select_slice(module: Module, options: EmitOptions) -> object:
    """What ``RegisterBackendSelect.cpp`` is made from (Note [Unit slices] in
    :mod:`schemac.backends.reuse`): the functions :func:`backend_select_functions`
    picks (their schemas alone decide the kernels, headers and registrations)
    and the banner's input path and release."""
    return (module.sources.native_functions, module.release, backend_select_functions(module))


def backend_select_view(module: Module) -> BackendSelectView:
    functions = backend_select_functions(module)
    return BackendSelectView(
        headers=tuple(sorted({f"ATen/ops/{root_name(f.func)}_ops.h" for f in functions})),
        definitions=tuple(_definition(f) for f in functions),
        registrations=tuple(
            f"m.impl({cpp_string_literal(f'aten::{f.func.name}')},"
            f" TORCH_FN({native_name(f.func)}));"
            for f in functions
        ),
    )


@attrs.frozen
class BackendSelectBackend:
    name: str = "aten-backend-select"
    description: str = "RegisterBackendSelect.cpp: dispatch keys of factory functions"
    targets: tuple[str, ...] = ("schema",)

    def emit(self, module: Module, options: EmitOptions) -> Iterable[GeneratedFile]:
        templates = Templates(PACKAGE)
        sources = native_sources(module)
        text = templates.render(
            "RegisterBackendSelect.cpp.mako", backend_select_view(module), sources=sources
        )
        return (GeneratedFile("ATen/RegisterBackendSelect.cpp", text),)


BACKEND = BackendSelectBackend()
