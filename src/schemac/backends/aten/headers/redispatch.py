"""``RedispatchFunctions.h``: ``at::redispatch::<op>(keyset, ...)``.

The C++ API again, every overload of every operator (method-only ones
included, since these are free functions in their own namespace), with a
leading ``c10::DispatchKeySet`` and forwarding to
``at::_ops::<op>::redispatch``.  Kernels that handle one dispatch key and
pass the call on below it use these.
"""

from __future__ import annotations

import attrs

from schemac.backends.aten.headers.catalog import Catalog
from schemac.backends.aten.registrations.translate import shared_call_arguments


@attrs.frozen
class Redispatcher:
    schema: str
    decl: str
    struct: str
    arguments: str


@attrs.frozen
class RedispatchHeader:
    functions: tuple[Redispatcher, ...]


def redispatch_header(catalog: Catalog) -> RedispatchHeader:
    out = []
    for entry in catalog.entries:
        for sig in entry.functions.all():
            params = (sig.params, entry.dispatcher.params)
            args = ["dispatchKeySet", *shared_call_arguments(catalog.views, *params)]
            out.append(
                Redispatcher(
                    entry.qualified_schema,
                    sig.decl(redispatch=True),
                    entry.struct_name,
                    ", ".join(args),
                )
            )
    return RedispatchHeader(tuple(out))
