"""The loader's shortcuts in schema parsing agree with a plain Lark parse.

See Note [Token shortcut] and Note [Piecewise parsing] in
src/schemac/frontend/schema_parser.py.
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from schemac.diagnostics import SchemacError
from schemac.frontend.schema_parser import SchemaParser, _transform_piece

NAMES = [
    "add", "add_", "__iadd__", "__and__", "__iand__", "__ixyz__", "_foo_functional",
    "foo_out", "aten::add", "toyops::scale_", "a::b::c", "", "1abc", "_", "__",
    "add_functional_", "ns::__ior__", "x.y",
]  # fmt: skip


def _reference(text: str) -> object:
    try:
        return _transform_piece(text, "operator_name").value  # type: ignore[attr-defined]
    except Exception as error:  # the kind of failure is compared, not its text
        return type(error).__name__


def _shortcut(text: str) -> object:
    try:
        return SchemaParser()._base_name(text)
    except Exception as error:
        return type(error).__name__


def test_base_name_shortcut_agrees_on_tricky_names() -> None:
    for text in NAMES:
        assert _shortcut(text) == _reference(text), text


@given(st.from_regex(r"([A-Za-z_][A-Za-z0-9_]*::)?[A-Za-z0-9_:.]{0,12}", fullmatch=True))
def test_base_name_shortcut_agrees_on_random_names(text: str) -> None:
    assert _shortcut(text) == _reference(text)


def test_public_operator_name_reports_what_the_grammar_rejects() -> None:
    parser = SchemaParser()
    assert str(parser.operator_name("aten::add.Tensor")) == "aten::add.Tensor"
    for bad in ("add.", "a b", "foo_out", "__ixyz__"):
        try:
            parser.operator_name(bad, file="f.yaml", line=2, column=5)
        except SchemacError as error:
            assert all(d.span.file == "f.yaml" and d.span.line == 2 for d in error.diagnostics)
        else:
            raise AssertionError(f"{bad!r} was accepted")
