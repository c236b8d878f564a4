"""Two types the grammar can write are equal exactly when they print alike.

Signature keys (``family_key``, derivative matching) hold types where the
reference compares their spelling; this is what makes the two agree.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from schemac.diagnostics import SchemacError
from schemac.frontend.schema_parser import parse_schema

from . import strategies


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(strategies.schema_like_text(), min_size=2, max_size=6))
def test_equal_types_print_alike(texts: list[str]) -> None:
    types = []
    for text in texts:
        try:
            schema = parse_schema(text)
        except SchemacError:
            continue
        types += [a.type for a in schema.arguments.flat_all] + [r.type for r in schema.returns]
    for a in types:
        for b in types:
            assert (a == b) == (str(a) == str(b)), (a, b)
