"""Default values as PythonArgParser spells them.

A parser signature's defaults are not the schema's: PyTorch first turns the
schema default into its C++ API expression (``[]`` -> ``{}``, ``False`` ->
``false``, ``Mean`` -> ``at::Reduction::Mean``), then reads that expression
back as a Python literal where it is one (``false`` -> ``False``,
``1e-5`` -> ``1e-05``), and finally spells every "no value" expression
``None``.  The round trip is behaviour the runtime parser depends on
(torch/csrc/utils/python_arg_parser.cpp reads these defaults), so it is
reproduced step by step here; the first step is the ATen C++ API view's
:func:`~schemac.backends.aten.signatures.defaults.cpp_default`, so both
backends spell a default the same way.
"""

from __future__ import annotations

from schemac.backends.aten.signatures.defaults import cpp_default
from schemac.ir.defaults import string_default_value
from schemac.ir.types import BaseTy, BaseType, OptionalType, Type

#: C++ expressions that mean "no value" and read as ``None`` in Python.
_NO_VALUE = frozenset({"nullptr", "::std::nullopt", "std::nullopt", "{}"})


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
    if default[:1] in ("'", '"') and _is_str(ty):
        value, _ = string_default_value(default)
        if value is not None:
            return parser_string_literal(value)
    # The C++ API's own spelling (the ATen view's), before any SymInt wrapping.
    return _as_python_literal(cpp_default(default, ty, symint=False))


def _is_str(ty: Type) -> bool:
    if isinstance(ty, OptionalType):
        ty = ty.elem
    return isinstance(ty, BaseType) and ty.name is BaseTy.str


#: The escapes PythonArgParser's string defaults know (torch/csrc/utils/python_arg_parser.cpp
#: refuses any other, ``\r`` and octal ones included, when the binding is first called).
_PARSER_ESCAPES = str.maketrans(
    {
        "\\": "\\\\",
        '"': '\\"',
        "\a": "\\a",
        "\b": "\\b",
        "\f": "\\f",
        "\n": "\\n",
        "\t": "\\t",
        "\v": "\\v",
    }
)


def parser_string_literal(value: str) -> str:
    """``value`` as a string default of a PythonArgParser signature (Note [String defaults]).

    Not a C++ literal: the parser reads the signature at run time and knows
    only the escapes of :data:`_PARSER_ESCAPES`; every other character (a
    carriage return, non-ASCII text) is written as itself.  The signature is
    then one C++ string literal of the generated file, which escapes those
    bytes for the compiler.
    """
    return '"' + value.translate(_PARSER_ESCAPES) + '"'


def spelled_default(value: str) -> str:
    """A :func:`python_default` as written in a PythonArgParser signature."""
    return "None" if value in _NO_VALUE else value


def means_no_value(value: str) -> bool:
    return value in ("None", "::std::nullopt", "std::nullopt")
