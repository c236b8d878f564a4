"""variable_factories.h: ``torch::`` factory functions that honour requires_grad.

``at::ones(..., options)`` ignores ``options.requires_grad()`` (kernels never
see autograd state).  The C++ frontend's ``torch::ones`` strips the flag,
calls the ATen factory below autograd and sets requires_grad on the result,
so ``torch::ones({2}, torch::requires_grad())`` is a leaf that requires grad.
One wrapper per C++ API overload (plain and ``_symint``) of every function
that takes TensorOptions or is a ``*_like`` factory; ``torch::tensor`` and
``torch::from_blob`` are written in the template.
"""

from __future__ import annotations

from collections.abc import Iterator

import attrs

from schemac.backends.aten.signatures.conventions import Conventions
from schemac.backends.aten.signatures.cpp_api import CppSignature, cpp_signature, has_symint
from schemac.backends.aten.signatures.naming import cpp_name
from schemac.backends.host_text import Filling, splice
from schemac.backends.output.files import GeneratedFile, Provenance
from schemac.backends.registry import EmitOptions
from schemac.backends.templating import Templates
from schemac.ir.host import AUTOGRAD
from schemac.ir.module import Module
from schemac.ir.native import NativeFunction, Variant

#: ``Param.source`` of the gathered TensorOptions parameter.
_OPTIONS_SOURCE = "dtype,layout,device,pin_memory"


def is_factory(fn: NativeFunction) -> bool:
    if Variant.function not in fn.variants:
        return False
    return fn.func.arguments.tensor_options is not None or cpp_name(fn.func).endswith("_like")


@attrs.frozen
class FactoryWrapper:
    head: str
    call: str
    requires_grad: str


def _wrapper(sig: CppSignature) -> FactoryWrapper:
    exprs = []
    requires_grad = "false"
    for p in sig.params:
        if p.source == _OPTIONS_SOURCE:
            exprs.append(f"at::TensorOptions({p.name}).requires_grad(::std::nullopt)")
            requires_grad = f"{p.name}.requires_grad()"
        else:
            exprs.append(p.name)
    params = ", ".join(
        f"{p.type} {p.name} = {p.default}" if p.default is not None else f"{p.type} {p.name}"
        for p in sig.params
    )
    return FactoryWrapper(
        head=f"inline at::Tensor {sig.name}({params})",
        call=f"at::{sig.name}({', '.join(exprs)})",
        requires_grad=requires_grad,
    )


@attrs.frozen
class FactoriesView:
    headers: tuple[str, ...]
    wrappers: tuple[FactoryWrapper, ...]


def factories_slice(module: Module, options: EmitOptions) -> object:
    """What ``variable_factories.h`` is made from (Note [Unit slices] in
    :mod:`schemac.backends.reuse`): the factory functions (:func:`factories_view`
    reads no other), the host's text of the header, and the banner's input paths
    and release.  An edit of any other function skips the unit."""
    factories = tuple(fn for fn in module.functions if is_factory(fn))
    return (module.sources, module.release, module.host_templates, factories)


def factories_view(module: Module) -> FactoriesView:
    factories = [fn for fn in module.functions if is_factory(fn)]
    wrappers = []
    for fn in factories:
        # The plain and ``_symint`` overloads of cpp_signature_group(fn), without
        # building the faithful (scattered TensorOptions) ones no wrapper uses.
        symbolic = (False, True) if has_symint(fn.func) else (False,)
        for symint in symbolic:
            sig = cpp_signature(
                fn.func,
                method=False,
                faithful=False,
                symint=symint,
                cpp_no_default_args=fn.cpp_no_default_args,
                conv=Conventions.of(fn),
            )
            wrappers.append(_wrapper(sig))
    headers = tuple(dict.fromkeys(fn.func.name.name.base for fn in factories))
    return FactoriesView(headers, tuple(wrappers))


def factories_files(
    templates: Templates, module: Module, sources: Provenance, directory: str
) -> Iterator[GeneratedFile]:
    view = factories_view(module)
    path = f"{directory}/variable_factories.h"
    host = None if module.host_templates is None else module.host_templates.get(AUTOGRAD, NAME)
    if host is None:
        yield GeneratedFile(path, templates.render(f"{NAME}.mako", view, sources=sources))
        return
    # PyTorch's own header (torch::tensor, torch::from_blob ... are written by
    # hand there) with the wrappers spliced in: docs/backends.md, "Host text".
    fillings: dict[str, Filling] = {
        "ops_headers": [f"#include <ATen/ops/{header}.h>" for header in view.headers],
        "function_definitions": templates.render("factory_wrappers.mako", view).rstrip("\n"),
    }
    yield GeneratedFile(path, splice(host, fillings))


NAME = "variable_factories.h"
