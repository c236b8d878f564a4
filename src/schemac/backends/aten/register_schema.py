"""``ATen/RegisterSchema.cpp``: every operator's schema, registered with the dispatcher.

One ``TORCH_LIBRARY`` block per namespace defines each operator from its
canonical schema text (``str(FunctionSchema)``, the same text PyTorch's parser
prints back) and its tags.  Operators with the same tag set share one
``std::vector<at::Tag>`` constant, declared where first needed, so the file
stays small.  The namespaces ``quantized`` and ``quantized_decomposed`` are
also defined by hand-written code in PyTorch, so they get a
``TORCH_LIBRARY_FRAGMENT``; ``aten`` additionally defines ``get_gradients``,
whose kernel PyTorch registers elsewhere (torch/csrc/jit/runtime).
"""

from __future__ import annotations

import attrs

from schemac.backends.cppmodel import check_identifier, cpp_string_literal
from schemac.backends.output.files import GeneratedFile
from schemac.backends.templating import Templates, module_sources
from schemac.diagnostics import Diagnostic, InputError
from schemac.ir.module import Module
from schemac.ir.native import NativeFunction

PATH = "ATen/RegisterSchema.cpp"

#: Namespaces that hand-written PyTorch code also defines operators in.
FRAGMENT_NAMESPACES = frozenset({"quantized", "quantized_decomposed"})

#: Schemas of the aten library that no YAML entry describes.
ATEN_EXTRA_SCHEMAS = ("get_gradients(int context_id) -> Dict(Tensor, Tensor)",)


@attrs.frozen
class LibraryView:
    """One ``TORCH_LIBRARY`` block: its macro, namespace and body lines."""

    macro: str
    namespace: str
    lines: tuple[str, ...]


@attrs.frozen
class RegisterSchemaView:
    libraries: tuple[LibraryView, ...]


def _tag_list(tags: tuple[str, ...]) -> str:
    return "{" + ", ".join(f"at::Tag::{tag}" for tag in tags) + "}"


def _library_lines(functions: list[NativeFunction], extra: tuple[str, ...]) -> tuple[str, ...]:
    lines: list[str] = []
    tag_constants: dict[tuple[str, ...], str] = {}
    for function in functions:
        literal = cpp_string_literal(str(function.func))
        tags = tuple(sorted(function.tags))
        if not tags:
            lines.append(f"m.def({literal}, {{}});")
            continue
        constant = tag_constants.get(tags)
        if constant is None:
            constant = f"tags_{len(tag_constants)}"
            tag_constants[tags] = constant
            lines.append(f"const std::vector<at::Tag> {constant} = {_tag_list(tags)};")
        lines.append(f"m.def({literal}, {constant});")
    lines.extend(f"m.def({cpp_string_literal(schema)});" for schema in extra)
    return tuple(lines)


def _check_names(functions: tuple[NativeFunction, ...]) -> None:
    """Namespaces and tags become C++ names here; each must be a valid identifier."""
    problems: dict[tuple[object, str], Diagnostic] = {}
    # A handful of names recur on thousands of functions: each is checked once,
    # and a span is looked up only for a name that fails.
    valid: set[str] = set()
    for function in functions:
        named = [(function.namespace, None), *((tag, "tags") for tag in function.tags)]
        for name, field in named:
            if name in valid:
                continue
            span = function.span if field is None else function.span_of(field)
            diagnostic = check_identifier(name, span)
            if diagnostic is None:
                valid.add(name)
            else:
                problems.setdefault((diagnostic.span, diagnostic.message), diagnostic)
    if problems:
        raise InputError(problems.values())


def register_schema_view(module: Module) -> RegisterSchemaView:
    _check_names(module.functions)
    by_namespace: dict[str, list[NativeFunction]] = {}
    for function in module.functions:
        by_namespace.setdefault(function.namespace, []).append(function)
    # aten first (it is PyTorch's own library), then the others by name.
    order = sorted(by_namespace, key=lambda ns: (ns != "aten", ns))
    libraries = []
    for namespace in order:
        functions = by_namespace[namespace]
        extra: tuple[str, ...] = ()
        if namespace == "aten":
            macro, extra = "TORCH_LIBRARY", ATEN_EXTRA_SCHEMAS
        elif namespace in FRAGMENT_NAMESPACES:
            macro = "TORCH_LIBRARY_FRAGMENT"
        else:
            macro = "TORCH_LIBRARY"
        libraries.append(LibraryView(macro, namespace, _library_lines(functions, extra)))
    return RegisterSchemaView(tuple(libraries))


def emit_register_schema(module: Module, templates: Templates) -> GeneratedFile:
    text = templates.render(
        "RegisterSchema.cpp.mako", register_schema_view(module), sources=module_sources(module)
    )
    return GeneratedFile(PATH, text)
