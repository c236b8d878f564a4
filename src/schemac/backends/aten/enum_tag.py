"""``at::Tag``: the enum of tags.yaml, for C++ and for Python.

``torch/headeronly/core/enum_tag.h`` declares the enum.  PyTorch's build
generates it into the header-only tree and keeps a forwarding
``ATen/core/enum_tag.h`` in its sources, so schemac writes it where the build
does.  ``python/python_enum_tag.cpp`` exposes it to Python as
``torch._C.Tag``; it is emitted for the ``python`` target.
"""

from __future__ import annotations

from collections.abc import Iterable

import attrs

from schemac.backends.cppmodel import check_identifier, cpp_string_literal
from schemac.backends.output.files import GeneratedFile
from schemac.backends.registry import EmitOptions
from schemac.backends.templating import Templates, module_sources
from schemac.diagnostics import InputError, Span
from schemac.ir.module import Module

HEADER_PATH = "torch/headeronly/core/enum_tag.h"
PYTHON_PATH = "python/python_enum_tag.cpp"


@attrs.frozen
class TagEnumView:
    #: Tag names (tags.yaml's and any a function carries), sorted:
    #: enumerator values follow this order.
    names: tuple[str, ...]

    @property
    def enumerators(self) -> str:
        return ",\n".join(f"  {name}" for name in self.names)

    @property
    def python_values(self) -> tuple[str, ...]:
        """``.value("core", at::Tag::core)`` for every tag."""
        return tuple(f".value({cpp_string_literal(name)}, at::Tag::{name})" for name in self.names)


def tag_enum_view(module: Module) -> TagEnumView:
    # Passes may tag functions they synthesise (``generated``, ``out``) with tags
    # a small library's tags.yaml does not declare; the enum must still name them.
    named: dict[str, Span] = {tag.name: tag.span for tag in module.tags}
    for function in module.functions:
        for tag in function.tags:
            if tag not in named:  # a span look-up per tag of every function costs ~3 ms
                named[tag] = function.span_of("tags")
    problems = [
        d for d in (check_identifier(name, span) for name, span in named.items()) if d is not None
    ]
    if problems:
        raise InputError(problems)
    return TagEnumView(tuple(sorted(named)))


def emit_enum_tag_header(module: Module, templates: Templates) -> GeneratedFile:
    text = templates.render(
        "enum_tag.h.mako", tag_enum_view(module), sources=module_sources(module)
    )
    return GeneratedFile(HEADER_PATH, text)


def emit_python_enum_tag(module: Module, templates: Templates) -> GeneratedFile:
    text = templates.render(
        "python_enum_tag.cpp.mako", tag_enum_view(module), sources=module_sources(module)
    )
    return GeneratedFile(PYTHON_PATH, text)


@attrs.frozen
class PythonEnumTagBackend:
    name: str = "python-enum-tag"
    description: str = "python_enum_tag.cpp: at::Tag as torch._C.Tag"
    targets: tuple[str, ...] = ("python",)

    def emit(self, module: Module, options: EmitOptions) -> Iterable[GeneratedFile]:
        return (emit_python_enum_tag(module, Templates(__package__ or "")),)


PYTHON_BACKEND = PythonEnumTagBackend()
