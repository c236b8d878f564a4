"""Default values as PythonArgParser spells them.

A parser signature's defaults are not the schema's: PyTorch first turns the
schema default into its C++ API expression (``[]`` -> ``{}``, ``False`` ->
``false``, ``Mean`` -> ``at::Reduction::Mean``), then reads that expression
back as a Python literal where it is one (``false`` -> ``False``,
``1e-5`` -> ``1e-05``), and finally spells every "no value" expression
``None``.  The round trip is behaviour the runtime parser depends on
(torch/csrc/utils/python_arg_parser.cpp reads these defaults), so it is
reproduced step by step here.
"""

from __future__ import annotations

from schemac.ir.types import BaseTy, BaseType, ListType, OptionalType, Type

#: Schema defaults whose C++ expression is not the text itself.
_SCHEMA_TO_CPP: dict[str, str] = {
    "False": "false",
    "True": "true",
    "None": "::std::nullopt",
    "Mean": "at::Reduction::Mean",
    "[]": "{}",
    "contiguous_format": "c10::MemoryFormat::Contiguous",
    "long": "at::kLong",
}

#: C++ expressions that mean "no value" and read as ``None`` in Python.
_NO_VALUE = frozenset({"nullptr", "::std::nullopt", "std::nullopt", "{}"})


def _cpp_string_literal(text: str) -> str:
    """A single-quoted schema string as a double-quoted C++ literal."""
    body = text[1:-1]
    out: list[str] = []
    index = 0
    while index < len(body):
        char = body[index]
        if char == "\\" and index + 1 < len(body):
            escaped = body[index + 1]
            out.append("'" if escaped == "'" else body[index : index + 2])
            index += 2
            continue
        out.append('\\"' if char == '"' else char)
        index += 1
    return '"' + "".join(out) + '"'


def cpp_default(default: str, ty: Type, *, symint: bool = False) -> str:
    """The C++ API expression for a schema default (without SymInt wrapping by default)."""
    if default == "None" and str(ty) == "Tensor?":
        return "{}"
    if ty == BaseType(BaseTy.str) and len(default) >= 2 and default[0] == default[-1] == "'":
        return _cpp_string_literal(default)
    if isinstance(ty, OptionalType):
        return (
            "::std::nullopt" if default == "None" else cpp_default(default, ty.elem, symint=symint)
        )
    if isinstance(ty, ListType):
        if default.startswith("[") and default.endswith("]"):
            return "{" + default[1:-1] + "}"
        if symint and default.isdigit() and ty.elem == BaseType(BaseTy.SymInt):
            return f"c10::SymInt({default})"
    return _SCHEMA_TO_CPP.get(default, default)


def _as_python_literal(expr: str) -> str:
    """``expr`` read back as a Python value where it is one, then printed."""
    if expr in ("true", "false"):
        return "True" if expr == "true" else "False"
    try:
        return str(int(expr))
    except ValueError:
        pass
    try:
        return str(float(expr))
    except ValueError:
        return expr


def python_default(default: str, ty: Type) -> str:
    """The schema default as PyTorch's binding generator holds it (C++ read as Python)."""
    return _as_python_literal(cpp_default(default, ty))


def spelled_default(value: str) -> str:
    """A :func:`python_default` as written in a PythonArgParser signature."""
    return "None" if value in _NO_VALUE else value


def means_no_value(value: str) -> bool:
    return value in ("None", "::std::nullopt", "std::nullopt")
