"""``ATen/core/aten_interned_strings.h``: the ``aten::`` and ``attr::`` symbols.

c10's ``Symbol`` table is seeded from two X-macro lists: every operator base
name (with and without its in-place ``_``, so ``add`` exists even when only
``add_`` does) and every argument name of every operator.  A name that is a C++
keyword (``and``, from ``__and__``) cannot become the enumerator the macro
expands to, so it is left out of both lists.
"""

from __future__ import annotations

import attrs

from schemac.backends.cppmodel import CPP_KEYWORDS
from schemac.backends.output.files import GeneratedFile
from schemac.backends.templating import Templates, module_sources
from schemac.ir.module import Module

PATH = "ATen/core/aten_interned_strings.h"


@attrs.frozen
class InternedStringsView:
    operator_symbols: tuple[str, ...]
    attribute_symbols: tuple[str, ...]

    @staticmethod
    def _macro_body(kind: str, names: tuple[str, ...]) -> str:
        # Macro continuation lines: every line but the last ends in a backslash.
        return " \\\n".join(f"_({kind}, {name})" for name in names)

    @property
    def operator_lines(self) -> str:
        return self._macro_body("aten", self.operator_symbols)

    @property
    def attribute_lines(self) -> str:
        return self._macro_body("attr", self.attribute_symbols)


def interned_strings_view(module: Module) -> InternedStringsView:
    operators: set[str] = set()
    attributes: set[str] = set()
    for function in module.functions:
        base = function.func.name.name
        operators.add(base.unqualified)  # the name without its namespace
        operators.add(base.base)
        attributes.update(arg.name for arg in function.func.arguments.flat_all)
    return InternedStringsView(
        operator_symbols=tuple(sorted(operators - CPP_KEYWORDS)),
        attribute_symbols=tuple(sorted(attributes - CPP_KEYWORDS)),
    )


def emit_interned_strings(module: Module, templates: Templates) -> GeneratedFile:
    text = templates.render(
        "aten_interned_strings.h.mako",
        interned_strings_view(module),
        sources=module_sources(module),
    )
    return GeneratedFile(PATH, text)
