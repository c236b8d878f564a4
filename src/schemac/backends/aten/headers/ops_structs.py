"""``ops/<op>_ops.h``, ``Operators.h`` and ``MethodOperators.h``: the ``at::_ops`` API.

Every operator overload gets a struct in ``at::_ops`` named after its
unambiguous name (``add_Tensor``) that records the schema at compile time
(``name``, ``overload_name``, ``schema_str``, the C++ function type) and
declares the two entry points into the dispatcher: ``call`` (dispatch from
the top) and ``redispatch`` (continue below a given key set).  Both follow
the dispatcher view: schema order, no defaults, symbolic sizes.  Every other
C++ API (``at::add``, ``Tensor::add``, ``at::redispatch::add``) is a thin
wrapper over these structs.

``Operators.h`` includes every ``_ops.h``; ``MethodOperators.h`` only those of
operators with a Tensor method, which is what ``TensorBody.h`` needs.
"""

from __future__ import annotations

import attrs

from schemac.backends.aten.headers.catalog import Catalog, Entry, Family
from schemac.backends.aten.signatures.naming import base_name
from schemac.backends.cppmodel import cpp_string_literal


@attrs.frozen
class OperatorStruct:
    name: str
    #: ``at::Tensor (const at::Tensor &, ...)``
    function_type: str
    #: ``"aten::add"`` and ``"Tensor"``, as C++ literals.
    qualified_name: str
    overload_name: str
    schema_str: str
    call: str
    redispatch: str


def operator_struct(entry: Entry) -> OperatorStruct:
    sig = entry.dispatcher
    return OperatorStruct(
        name=entry.struct_name,
        function_type=sig.type(),
        qualified_name=cpp_string_literal(f"{entry.fn.namespace}::{base_name(entry.name)}"),
        overload_name=cpp_string_literal(entry.name.overload),
        schema_str=cpp_string_literal(entry.schema),
        call=sig.defn("call"),
        redispatch=sig.defn("redispatch", redispatch=True),
    )


@attrs.frozen
class OperatorsHeader:
    """One ``ops/<op>_ops.h``."""

    root: str
    structs: tuple[OperatorStruct, ...]


def operators_header(family: Family) -> OperatorsHeader:
    return OperatorsHeader(family.root, tuple(operator_struct(e) for e in family.entries))


@attrs.frozen
class IncludeList:
    """An umbrella header: one ``#include`` per family."""

    includes: tuple[str, ...]


def all_operators(catalog: Catalog) -> IncludeList:
    roots = sorted(f.root for f in catalog.families)
    return IncludeList(tuple(f"ATen/ops/{root}_ops.h" for root in roots))


def method_operators(catalog: Catalog) -> IncludeList:
    roots = sorted(f.root for f in catalog.families if f.has_methods)
    return IncludeList(tuple(f"ATen/ops/{root}_ops.h" for root in roots))
