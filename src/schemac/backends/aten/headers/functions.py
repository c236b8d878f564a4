"""``ops/<op>.h`` and ``Functions.h``: the ``at::`` function API.

Each overload of the C++ API view (plain, faithful, symint) becomes an
inline function forwarding to ``at::_ops::<op>::call``; the arguments are
converted from the C++ API's spelling to the dispatcher's
(``c10::fromIntArrayRefSlow``, TensorOptions unpacked, ...).

Operators with symbolic sizes also get a copy of every overload in
``at::symint`` as a template over the integer type (``int64_t`` or
``c10::SymInt``), so generic code can write ``at::symint::empty<T>(...)``
and pick the concrete or symbolic overload by ``T``.  Those templates are
emitted even for method-only operators.

``Functions.h`` includes every ``ops/<op>.h`` and adds a few convenience
functions written by hand.
"""

from __future__ import annotations

import attrs

from schemac.backends.aten.headers.catalog import Catalog, Entry, Family
from schemac.backends.aten.registrations.translate import shared_call_arguments
from schemac.backends.aten.signatures.table import ViewTable


@attrs.frozen
class Forwarder:
    """``inline <decl> { return at::_ops::<op>::call(<args>); }``, maybe in ``at::symint``."""

    schema: str
    decl: str
    struct: str
    arguments: str
    #: For the ``at::symint`` templates: ``int64_t`` or ``c10::SymInt``; else None.
    int_type: str | None = None


def forwarders(entry: Entry, views: ViewTable) -> tuple[Forwarder, ...]:
    out: list[Forwarder] = []
    group = entry.functions
    # The group has symbolic overloads exactly when the schema has a SymInt.
    has_symint = group.symint is not None
    for sig in group.all():
        args = ", ".join(shared_call_arguments(views, sig.params, entry.dispatcher.params))
        if entry.is_function:
            out.append(Forwarder(entry.qualified_schema, sig.decl(), entry.struct_name, args))
        if has_symint:
            int_type = "c10::SymInt" if sig.symint else "int64_t"
            out.append(
                Forwarder(
                    entry.qualified_schema,
                    sig.decl(sig.plain_name),
                    entry.struct_name,
                    args,
                    int_type,
                )
            )
    return tuple(out)


@attrs.frozen
class FunctionHeader:
    """One ``ops/<op>.h``."""

    root: str
    forwarders: tuple[Forwarder, ...]


def function_header(family: Family, views: ViewTable) -> FunctionHeader:
    """``views``: the run's view table (:attr:`.Catalog.views`)."""
    return FunctionHeader(
        family.root, tuple(f for entry in family.entries for f in forwarders(entry, views))
    )


@attrs.frozen
class FunctionsUmbrella:
    includes: tuple[str, ...]


def functions_umbrella(catalog: Catalog) -> FunctionsUmbrella:
    roots = sorted(f.root for f in catalog.families)
    return FunctionsUmbrella(tuple(f"ATen/ops/{root}.h" for root in roots))
