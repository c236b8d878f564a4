"""``RegistrationDeclarations.h``: every operator as an out-of-tree backend sees it.

Not C++ that is compiled: one line per operator, the dispatcher view's
declaration followed by a JSON comment that tools (backend code generators
of out-of-tree devices) parse: the qualified schema, whether the operator
needs a kernel per backend (``dispatch``: it is not implemented by
CompositeImplicitAutograd alone) and whether a composite kernel makes a
backend kernel optional (``default``).
"""

from __future__ import annotations

import json
from collections.abc import Iterable

import attrs

from schemac.backends.aten.headers.catalog import Entry
from schemac.ir.resolved import Resolution
from schemac.ir.schema import SchemaKind


def _has_generated_composite(entry: Entry) -> bool:
    # Structured operators' functional and in-place variants get a generated
    # CompositeExplicitAutogradNonFunctional kernel from the out= kernel.
    fn = entry.fn
    return (fn.structured or fn.structured_delegate is not None) and fn.func.kind() in (
        SchemaKind.functional,
        SchemaKind.inplace,
    )


def registration_line(entry: Entry) -> str:
    """One function's line (a piece of :mod:`.pieces`), made from the entry alone."""
    sig = entry.dispatcher
    data = {
        "schema": entry.qualified_schema,
        "dispatch": str(Resolution.abstract_by_table(entry.resolution.dispatch)),
        "default": str(entry.resolution.has_composite_kernel or _has_generated_composite(entry)),
    }
    return f"{sig.decl()}; // {json.dumps(data)}"


@attrs.frozen
class RegistrationDeclarations:
    lines: tuple[str, ...]


def registration_declarations(lines: Iterable[str]) -> RegistrationDeclarations:
    """``lines``: :func:`registration_line` of every function, in catalog order."""
    return RegistrationDeclarations(tuple(lines))
