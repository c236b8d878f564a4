"""Schema default values -> C++ default arguments.

A schema default is written in the schema language (``None``, ``True``,
``[0, 1]``, ``'mean'``, ``contiguous_format``); the C++ API needs an
expression of the parameter's C++ type.  Most spellings map one to one;
``None`` depends on the type (an optional tensor defaults to ``{}``, every
other optional to ``::std::nullopt``), lists become brace initialisers and
single-quoted strings become double-quoted C++ literals.
"""

from __future__ import annotations

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
    if ty == BaseType(BaseTy.str) and len(default) >= 2 and default[0] == default[-1] == "'":
        return _string_literal(default[1:-1])
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


def _string_literal(body: str) -> str:
    """A single-quoted schema string body as a C++ double-quoted literal."""
    out: list[str] = []
    index = 0
    while index < len(body):
        char = body[index]
        if char == "\\" and index + 1 < len(body):
            escaped = body[index + 1]
            # ``\'`` needs no escape inside double quotes; other escapes carry over.
            out.append("'" if escaped == "'" else body[index : index + 2])
            index += 2
            continue
        out.append('\\"' if char == '"' else char)
        index += 1
    return '"' + "".join(out) + '"'
