"""Span, the position every diagnostic and IR node carries, behaves as a value.

It is a named tuple for speed (see its docstring); these are the properties its
users rely on, including the fast constructor the loaders use.
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from schemac.diagnostics import NO_SPAN, Diagnostic, SchemacError, Span, span_from_fields

_FIELDS = st.tuples(
    st.sampled_from(["a.yaml", "b.yaml", "<schema>"]),
    st.integers(0, 50),
    st.integers(0, 80),
    st.integers(0, 50),
    st.integers(0, 80),
)


@given(_FIELDS)
def test_fast_constructor_builds_the_same_span(fields: tuple[str, int, int, int, int]) -> None:
    fast = span_from_fields(fields)
    slow = Span(*fields)
    assert type(fast) is Span
    assert fast == slow and hash(fast) == hash(slow)
    assert (fast.file, fast.line, fast.column, fast.end_line, fast.end_column) == fields
    assert str(fast) == f"{fields[0]}:{fields[1]}:{fields[2]}"


@given(_FIELDS, _FIELDS)
def test_spans_order_field_by_field(
    a: tuple[str, int, int, int, int], b: tuple[str, int, int, int, int]
) -> None:
    assert (Span(*a) < Span(*b)) == (a < b)
    assert (Span(*a) == Span(*b)) == (a == b)


def test_span_helpers() -> None:
    span = Span("f.yaml", 1, 3, 1, 7)
    assert repr(span) == "Span(file='f.yaml', line=1, column=3, end_line=1, end_column=7)"
    assert span.shifted(10, 5) == Span("f.yaml", 10, 7, 10, 11)
    assert span.with_file("g.yaml") == Span("g.yaml", 1, 3, 1, 7)
    assert Span.point("f.yaml", 2, 4) == Span("f.yaml", 2, 4, 2, 5)
    assert Span.point("f.yaml", 2, 4, 0).end_column == 5
    assert span != NO_SPAN


def test_diagnostics_sort_by_position() -> None:
    late = Diagnostic(Span("f.yaml", 9, 1, 9, 2), "late")
    early = Diagnostic(Span("f.yaml", 2, 5, 2, 6), "early")
    assert [d.message for d in SchemacError([late, early]).diagnostics] == ["early", "late"]
