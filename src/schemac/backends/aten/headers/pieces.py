"""Each function's pieces of the aggregate headers, rendered as one fragment.

``RedispatchFunctions.h`` (its ``at::redispatch::`` overloads),
``RegistrationDeclarations.h`` (its line) and ``core/TensorBody.h`` (a method's
declarations in the class and definitions after it) each hold a piece made
from one function alone.  The four are rendered together, as one fragment of
the target per function (Note [Fragment reuse] in :mod:`schemac.backends.reuse`):
an edit run renders the pieces of the edited functions only, and computes no
other function's views.  One fragment for the four because each costs its
fingerprint and a record in the store (~10 us), not to be paid 10,000 times on
a cold run for 3,101 functions.
"""

from __future__ import annotations

import attrs

from schemac.backends.aten.headers.catalog import Catalog, Entry
from schemac.backends.aten.headers.redispatch import redispatchers
from schemac.backends.aten.headers.registration_decls import registration_line
from schemac.backends.aten.headers.tensor_body import method_declarations, method_definitions
from schemac.backends.aten.signatures.table import ViewTable
from schemac.backends.reuse import Fragments


@attrs.frozen
class Pieces:
    """One function's texts in the aggregate headers (empty where it has none)."""

    redispatch: str
    registration: str
    method_declarations: str
    method_definitions: str


def function_pieces(views: ViewTable, entry: Entry) -> str:
    """The render of a function's fragment: its :class:`Pieces`, each
    length-prefixed (``12:text...``) so that any text reads back as it was."""
    methods = entry.is_method
    parts = (
        redispatchers(views, entry),
        registration_line(entry),
        method_declarations(entry) if methods else "",
        method_definitions(entry) if methods else "",
    )
    return "".join(f"{len(part)}:{part}" for part in parts)


def _split(text: str) -> Pieces:
    parts = []
    start = 0
    for _ in range(4):
        colon = text.index(":", start)
        end = colon + 1 + int(text[start:colon])
        parts.append(text[colon + 1 : end])
        start = end
    assert start == len(text), "a fragment of function_pieces"
    return Pieces(*parts)


def catalog_pieces(catalog: Catalog, fragments: Fragments | None = None) -> tuple[Pieces, ...]:
    """Every function's pieces, in catalog order; ``fragments``: the target's
    (every piece is rendered here without them)."""
    store = Fragments() if fragments is None else fragments
    views = catalog.views
    return tuple(_split(store.text(function_pieces, entry, views)) for entry in catalog.entries)
