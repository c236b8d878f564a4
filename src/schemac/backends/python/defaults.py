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
from schemac.ir.types import Type

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
    # The C++ API's own spelling (the ATen view's), before any SymInt wrapping.
    return _as_python_literal(cpp_default(default, ty, symint=False))


def spelled_default(value: str) -> str:
    """A :func:`python_default` as written in a PythonArgParser signature."""
    return "None" if value in _NO_VALUE else value


def means_no_value(value: str) -> bool:
    return value in ("None", "::std::nullopt", "std::nullopt")
