"""``RedispatchFunctions.h``: ``at::redispatch::<op>(keyset, ...)``.

The C++ API again, every overload of every operator (method-only ones
included, since these are free functions in their own namespace), with a
leading ``c10::DispatchKeySet`` and forwarding to
``at::_ops::<op>::redispatch``.  Kernels that handle one dispatch key and
pass the call on below it use these.
"""

from __future__ import annotations

from collections.abc import Iterable

import attrs

from schemac.backends.aten.headers.catalog import Entry
from schemac.backends.aten.registrations.translate import shared_call_arguments
from schemac.backends.aten.signatures.table import ViewTable


@attrs.frozen
class RedispatchHeader:
    #: One block per function: its overloads, each after a blank line and
    #: its schema (without the block's last newline, which the template adds).
    blocks: tuple[str, ...]


def redispatchers(views: ViewTable, entry: Entry) -> str:
    """The ``at::redispatch::`` overloads of one function (a piece of
    :mod:`.pieces`), made from the entry alone."""
    blocks = []
    for sig in entry.functions.all():
        params = (sig.params, entry.dispatcher.params)
        args = ", ".join(["dispatchKeySet", *shared_call_arguments(views, *params)])
        blocks.append(
            f"\n// {entry.qualified_schema}\n"
            f"inline {sig.decl(redispatch=True)} {{\n"
            f"    return at::_ops::{entry.struct_name}::redispatch({args});\n"
            "}"
        )
    return "\n".join(blocks)


def redispatch_header(blocks: Iterable[str]) -> RedispatchHeader:
    """``blocks``: :func:`redispatchers` of every function, in catalog order."""
    return RedispatchHeader(tuple(block for block in blocks if block))
