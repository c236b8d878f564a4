"""Schema default values -> C++ default arguments.

A schema default is written in the schema language (``None``, ``True``,
``[0, 1]``, ``'mean'``, ``contiguous_format``); the C++ API needs an
expression of the parameter's C++ type.  Most spellings map one to one;
``None`` depends on the type (an optional tensor defaults to ``{}``, every
other optional to ``::std::nullopt``), lists become brace initialisers and
single-quoted strings become double-quoted C++ literals.
"""

from __future__ import annotations

from schemac.backends.cppmodel import cpp_string_literal
from schemac.ir.defaults import string_default_value
from schemac.ir.types import BaseTy, BaseType, ListType, OptionalType, Type

_SPELLINGS = {
    "False": "false",
    "True": "true",
    "None": "::std::nullopt",
    "Mean": "at::Reduction::Mean",
    "[]": "{}",
    "contiguous_format": "c10::MemoryFormat::Contiguous",
    "long": "at::kLong",
}


class UnsupportedDefault(Exception):
    """A default that cannot be spelled in C++ for its type."""


def cpp_default(default: str, ty: Type, *, symint: bool) -> str:
    if default == "None" and ty == OptionalType(BaseType(BaseTy.Tensor)):
        return "{}"
    if ty == BaseType(BaseTy.str) and default[:1] in ("'", '"'):
        # The value, decoded by the schema language's rules (Note [String
        # defaults]), printed with C++'s: never the YAML spelling.
        value, problem = string_default_value(default)
        if value is None:
            raise UnsupportedDefault(problem or f"bad string default {default}")
        return cpp_string_literal(value)
    if isinstance(ty, OptionalType):
        if default == "None":
            return "::std::nullopt"
        return cpp_default(default, ty.elem, symint=symint)
    if isinstance(ty, ListType):
        if default.startswith("[") and default.endswith("]"):
            return "{" + default[1:-1] + "}"
        if symint and default.isdigit() and ty.elem == BaseType(BaseTy.SymInt):
            return f"c10::SymInt({default})"
        if ty.size is None:
            # Only a sized list (``int[2] stride=1``) may default to one element.
            raise UnsupportedDefault(f"list default must be '[...]', got '{default}'")
    return _SPELLINGS.get(default, default)
