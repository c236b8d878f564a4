"""Which default values fit which argument types.

The grammar accepts any literal after ``=`` (as torchgen does, see
docs/schema-parsers.md).  A default that does not fit its type (``int[] x=3``,
``Tensor[] t=nan``, ``bool b=1.5``) would pass the front end and only fail in
a backend that has to spell it in C++ or Python, so backends/cpp_names.py
checks every default with :func:`default_problem` before any backend runs.
The accepted forms are those PyTorch's files use for each type (every real
schema passes), plus ``[x]`` for a scalar, which C++ reads as ``{x}``.
"""

from __future__ import annotations

import re

from schemac.ir.types import BaseTy, BaseType, ListType, OptionalType, Type

_INT = re.compile(r"-?\d+")
_FLOAT = re.compile(r"-?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?")

#: The named defaults, by the base type they stand for.
_NAMED = {
    BaseTy.int: frozenset({"Mean"}),  # at::Reduction::Mean
    BaseTy.MemoryFormat: frozenset({"contiguous_format"}),
    BaseTy.ScalarType: frozenset({"long"}),
    BaseTy.bool: frozenset({"True", "False"}),
}


def _fits_base(default: str, base: BaseTy) -> bool:
    if default in _NAMED.get(base, ()):
        return True
    if base in (BaseTy.int, BaseTy.SymInt):
        return _INT.fullmatch(default) is not None
    if base in (BaseTy.float, BaseTy.Scalar):
        return _FLOAT.fullmatch(default) is not None
    if base is BaseTy.str:
        return len(default) >= 2 and default[0] == default[-1] and default[0] in "'\""
    return False


def _fits(default: str, ty: Type) -> bool:
    if isinstance(ty, OptionalType):
        return default == "None" or _fits(default, ty.elem)
    if isinstance(ty, ListType):
        if default.startswith("[") and default.endswith("]"):
            items = [item.strip() for item in default[1:-1].split(",") if item.strip()]
            return all(_fits(item, ty.elem) for item in items)
        # A sized list may default to one element, repeated (``int[2] stride=1``).
        return ty.size is not None and _fits(default, ty.elem)
    if default.startswith("[") and default.endswith("]"):  # ``int x=[1]``: C++ takes ``{1}``
        return (
            default[1:-1].strip() != "" and "," not in default and _fits(default[1:-1].strip(), ty)
        )
    return isinstance(ty, BaseType) and _fits_base(default, ty.name)


def default_problem(default: str, ty: Type) -> str | None:
    """Why ``default`` cannot be the default of an argument of type ``ty``, or None."""
    if _fits(default, ty):
        return None
    if default == "None":
        return f"default None for the non-optional type '{ty}'"
    if isinstance(ty, ListType) and ty.size is None and not default.startswith("["):
        return f"default '{default}' for the unsized list type '{ty}' (write a list: [{default}])"
    return f"default '{default}' does not fit the type '{ty}'"
