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
from schemac.backends.output.files import GeneratedFile, Provenance
from schemac.backends.templating import Templates
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
    text = templates.render("variable_factories.h.mako", factories_view(module), sources=sources)
    yield GeneratedFile(f"{directory}/variable_factories.h", text)
