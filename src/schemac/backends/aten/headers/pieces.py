"""Each function's pieces of the aggregate headers, rendered in buckets of fragments.

``RedispatchFunctions.h`` (its ``at::redispatch::`` overloads),
``RegistrationDeclarations.h`` (its line) and ``core/TensorBody.h`` (a method's
declarations in the class and definitions after it) each hold a piece made
from one function alone.  A function's four texts are printed together, and the
functions in buckets (Note [Fragment buckets] in :mod:`schemac.backends.buckets`):
an edit run renders the buckets of the edited functions only, and computes no
other function's views.  Buckets because a fragment costs its key and a record
in the store (~10 us): one per function was 3,101 of them on torch's files,
looked up again after every edit (~0.03 s); 64 buckets are 64.
"""

from __future__ import annotations

import attrs

from schemac.backends.aten.headers.catalog import Catalog, Entry
from schemac.backends.aten.headers.redispatch import redispatchers
from schemac.backends.aten.headers.registration_decls import registration_line
from schemac.backends.aten.headers.tensor_body import method_declarations, method_definitions
from schemac.backends.aten.signatures.table import ViewTable
from schemac.backends.buckets import SEPARATOR, bucketed_parts
from schemac.backends.reuse import Fragments


@attrs.frozen
class Pieces:
    """One function's texts in the aggregate headers (empty where it has none)."""

    redispatch: str
    registration: str
    method_declarations: str
    method_definitions: str


def function_texts(views: ViewTable, entry: Entry) -> tuple[str, str, str, str]:
    """A function's :class:`Pieces`, in order."""
    methods = entry.is_method
    return (
        redispatchers(views, entry),
        registration_line(entry),
        method_declarations(entry) if methods else "",
        method_definitions(entry) if methods else "",
    )


def _render_bucket(views: ViewTable, inputs: tuple[str, tuple[Entry, ...]]) -> str:
    """A bucket of functions' texts (Note [Fragment buckets]), each followed by
    the separator; a function's are made from its catalog entry (its function
    and resolution) alone."""
    return "".join(text + SEPARATOR for e in inputs[1] for text in function_texts(views, e))


def catalog_pieces(catalog: Catalog, fragments: Fragments | None = None) -> tuple[Pieces, ...]:
    """Every function's pieces, in catalog order; ``fragments``: the target's
    (every piece is rendered here without them)."""
    entries = catalog.entries
    texts = bucketed_parts(
        Fragments() if fragments is None else fragments,
        _render_bucket,
        "header-pieces",
        entries,
        [str(e.name) for e in entries],
        catalog.views,
        parts=4,
    )
    return tuple(Pieces(*four) for four in texts)
