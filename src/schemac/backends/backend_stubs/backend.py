"""The ``backend`` target: an out-of-tree backend's three files.

``schemac compile --backend BACKEND_YAML`` puts the loaded YAML in
``Module.external_backend`` and selects this target; without a backend YAML
the target produces nothing.  Like torchgen, a YAML that lists no
``supported`` (or ``structured``) operator produces no files at all.
"""

from __future__ import annotations

from collections.abc import Iterator

import attrs

from schemac.backends.aten.registrations.cpp import block
from schemac.backends.aten.signatures.table import ViewTable
from schemac.backends.backend_stubs.bind import BoundBackend, bind_backend
from schemac.backends.backend_stubs.plan import plan_stubs
from schemac.backends.backend_stubs.register import StubPrinter, kernel_declarations
from schemac.backends.output.files import GeneratedFile
from schemac.backends.registry import EmitOptions
from schemac.backends.templating import Templates
from schemac.diagnostics import InputError
from schemac.ir.external_backend import ExternalBackend
from schemac.ir.module import Module

PACKAGE = "schemac.backends.backend_stubs"
TARGET = "backend"


@attrs.frozen
class HeaderView:
    backend: str
    namespace: str
    class_name: str
    headers: tuple[str, ...]
    declarations: tuple[str, ...]


@attrs.frozen
class RegisterView:
    backend: str
    key: str
    class_header: str
    headers: tuple[str, ...]
    helpers: tuple[str, ...]
    definitions: tuple[str, ...]
    registrations: tuple[tuple[str, tuple[str, ...]], ...]


def header_path(spec: ExternalBackend) -> str:
    return f"{spec.backend}NativeFunctions.h"


def bound_or_raise(module: Module, spec: ExternalBackend) -> BoundBackend:
    bound, problems = bind_backend(module, spec)
    if problems:
        raise InputError(problems)
    return bound


def backend_files(module: Module, spec: ExternalBackend) -> Iterator[GeneratedFile]:
    bound = bound_or_raise(module, spec)
    if not bound.has_forward:
        return
    templates = Templates(PACKAGE)
    views = ViewTable()
    sources = (module.sources.native_functions, spec.file)
    declarations: list[str] = []
    structured_headers: list[str] = []
    for key in bound.dispatch_keys():
        stubs = plan_stubs(module, bound, key)
        printer = StubPrinter(module, bound, key, views)
        declarations += kernel_declarations(stubs, printer)
        texts = [printer.text(stub) for stub in stubs]
        by_namespace: dict[str, list[str]] = {}
        for text in texts:
            by_namespace.setdefault(text.namespace, []).append(text.registration)
        view = RegisterView(
            backend=spec.backend,
            key=key,
            class_header=header_path(spec),
            headers=printer.traits.extra_headers,
            helpers=printer.helpers(),
            definitions=tuple(t.definition for t in texts),
            registrations=tuple((ns, tuple(lines)) for ns, lines in by_namespace.items()),
        )
        yield GeneratedFile(
            f"Register{key}.cpp",
            templates.render("RegisterBackend.cpp.mako", view, sources=sources),
            span=spec.backend_span,
        )
    for group, kernel in bound.structured:
        functional, out = module.function(group.functional), module.function(group.out)
        meta = views.structured_meta(functional, out)
        impl = views.structured_impl(meta, out, kernel.kernel.name)
        head = f"struct {impl.class_name} : public {meta.qualified_class_name}"
        declarations.append(block(head, [impl.impl.decl() + ";"], tail=";"))
        structured_headers.append(f"ATen/ops/{functional.func.name.name.base}_meta.h")
    header = HeaderView(
        backend=spec.backend,
        namespace=spec.cpp_namespace,
        class_name=spec.kernel_class,
        headers=tuple(sorted(set(structured_headers))),
        declarations=tuple(declarations),
    )
    yield GeneratedFile(
        header_path(spec),
        templates.render("BackendNativeFunctions.h.mako", header, sources=sources),
        span=spec.backend_span,
    )


@attrs.frozen
class BackendStubsBackend:
    name: str = "backend-stubs"
    description: str = "<Backend>NativeFunctions.h, Register<Backend>.cpp for a --backend YAML"
    targets: tuple[str, ...] = (TARGET,)

    def emit(self, module: Module, options: EmitOptions) -> Iterator[GeneratedFile]:
        if module.external_backend is None:
            return iter(())
        return backend_files(module, module.external_backend)


BACKEND = BackendStubsBackend()
