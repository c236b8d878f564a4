"""Named-tuple results: ``torch.return_types.max(values=..., indices=...)``.

An operator whose returns are all named (``-> (Tensor values, Tensor
indices)``) returns a ``PyStructSequence`` in Python.  Each distinct (C++
name, field names) pair gets one type, created on first use by
``get_<name>_structseq()`` in python_return_types.cpp and registered in
``torch.return_types``.  Out= overloads get their own (``max_out``), so that
``torch.return_types`` has the same entries PyTorch's has.
"""

from __future__ import annotations

from collections.abc import Sequence

import attrs

from schemac.backends.aten.signatures.naming import cpp_name
from schemac.backends.python.errors import UnnamedField
from schemac.ir.native import NativeFunction
from schemac.ir.schema import Return


def field_names(returns: Sequence[Return]) -> tuple[str, ...]:
    """The named-tuple fields, or () when the result is a plain value or tuple."""
    if len(returns) <= 1 or all(r.name is None for r in returns):
        return ()
    names = tuple(r.name for r in returns if r.name is not None)
    if len(names) != len(returns):
        raise UnnamedField(", ".join(str(r) for r in returns))
    return names


def structseq_key(function: NativeFunction) -> str:
    return "_".join((cpp_name(function.func), *field_names(function.func.returns)))


@attrs.frozen
class StructSeq:
    """One ``torch.return_types.<name>`` type."""

    name: str
    fields: tuple[str, ...]
    #: The local C++ variable holding the PyTypeObject in python_return_types.cpp.
    type_variable: str

    @property
    def getter(self) -> str:
        return f"get_{self.name}_structseq"


def structseqs(functions: Sequence[NativeFunction]) -> list[tuple[str, StructSeq]]:
    """(key, type) for the named-tuple results of ``functions``, first use first.

    Variable names are numbered within one operator name, the way the
    bindings refer to them (``maxNamedTuple``, ``maxNamedTuple1``).
    """
    seen: dict[str, StructSeq] = {}
    for function in functions:
        fields = field_names(function.func.returns)
        if not fields:
            continue
        key = structseq_key(function)
        if key in seen:
            continue
        name = cpp_name(function.func)
        suffix = str(len(seen)) if seen else ""
        seen[key] = StructSeq(name, fields, f"{name}NamedTuple{suffix}")
    return list(seen.items())


def binding_typenames(functions: Sequence[NativeFunction]) -> list[tuple[str, str, StructSeq]]:
    """(key, local typedef name, type) as one binding function declares them."""
    result = []
    for index, (key, seq) in enumerate(structseqs(functions)):
        result.append((key, f"NamedTuple{index if index else ''}", seq))
    return result
