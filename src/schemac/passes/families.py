"""Bucketing native functions by normalised signature (shared by two passes).

Synthesis (``autogen-variants``) and grouping (``group-variants``) both start
from the same bucketing: every function goes to the bucket of its
:func:`~schemac.ir.signature.signature`, under its schema kind.  Two functions
of one kind in one bucket (two out= overloads that normalise to the same
signature, say) make the family ambiguous; that is a user error, reported at
the second one.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable

from schemac.diagnostics import DiagnosticSink
from schemac.ir.native import NativeFunction
from schemac.ir.schema import SchemaKind

#: family key (:func:`~schemac.ir.signature.family_key`) -> kind -> function; dicts keep
#: the order functions were first seen.
Families = dict[Hashable, dict[SchemaKind, NativeFunction]]


def bucket_by_signature(functions: Iterable[NativeFunction], sink: DiagnosticSink) -> Families:
    families: Families = {}
    for f in functions:
        func = f.func
        members = families.setdefault(func.family_key, {})
        kind = func.kind()
        # One look-up (SchemaKind hashes in Python): f goes in unless its kind is taken.
        count = len(members)
        other = members.setdefault(kind, f)
        if len(members) == count:
            sink.error(
                f.span_of("func"),
                f"'{f.name}' and '{other.name}' are both {kind.value} variants of "
                f"the same operator signature",
                "give one of them a different signature, or remove it",
            )
    return families
