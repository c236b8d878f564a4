"""``ATen/core/ATenOpList.cpp``: is an operator name one of this library's?

PyTorch asks ``at::is_custom_op(name)`` to tell operators of
native_functions.yaml from operators registered at run time.  The names are
emitted as one ``constexpr`` array sorted by byte value, so the lookup is a
binary search over static data: no hash set built at start-up.
"""

from __future__ import annotations

import attrs

from schemac.backends.cppmodel import cpp_string_literal
from schemac.backends.output.files import GeneratedFile
from schemac.backends.templating import Templates, module_sources
from schemac.ir.module import Module

PATH = "ATen/core/ATenOpList.cpp"


@attrs.frozen
class OpListView:
    #: ``{"aten::add", "Tensor"}`` initialisers, sorted as the C++ lookup expects.
    entries: tuple[str, ...]

    @property
    def count(self) -> int:
        return len(self.entries)


def qualified_operator_names(module: Module) -> tuple[tuple[str, str], ...]:
    """``("ns::name", "overload")`` of every operator, sorted by UTF-8 bytes.

    The order must equal ``std::string_view``'s ``operator<``, which compares
    characters as unsigned bytes; sorting the encoded bytes gives exactly that.
    """
    names = {
        (f"{function.namespace}::{function.func.name.name}", function.func.name.overload)
        for function in module.functions
    }
    return tuple(sorted(names, key=lambda pair: (pair[0].encode(), pair[1].encode())))


def op_list_view(module: Module) -> OpListView:
    return OpListView(
        tuple(
            f"{{{cpp_string_literal(name)}, {cpp_string_literal(overload)}}}"
            for name, overload in qualified_operator_names(module)
        )
    )


def emit_op_list(module: Module, templates: Templates) -> GeneratedFile:
    text = templates.render(
        "ATenOpList.cpp.mako", op_list_view(module), sources=module_sources(module)
    )
    return GeneratedFile(PATH, text)
