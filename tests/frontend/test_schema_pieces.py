"""The loader's shortcuts in schema parsing agree with a plain Lark parse.

See Note [Token shortcut] and Note [Piecewise parsing] in
src/schemac/frontend/schema_parser.py.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from schemac.diagnostics import SchemacError
from schemac.frontend.schema_parser import (
    SchemaParser,
    _parse_fragment,
    _parse_whole,
    _transform_piece,
)
from schemac.frontend.schema_transformer import ToIR
from schemac.ir.schema import Argument, FunctionSchema, schema_text

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


ARGUMENTS = [
    "Tensor self", "Tensor? weight=None", "int[2] stride=1", "int[] dims=[]", "SymInt[1]? s=[0,1]",
    "float eps=1e-05", "float x=-.5", "bool flag=True", "str reduce=mean", "Tensor?[] indices",
    "int[2]?[] x", "Tensor(a!) out", "Foo x", "int x=1abc", "int x=-inf", "int a.b", "Tensor x=",
    "Tensor  x", "int[0] x", "int[01] x", "*", "int x=[1, 2]", "Scalar? alpha=1.", "int x=0x1",
    "__torch__.torch.classes.quantized.Conv2dPackedParamsBase p", "Tensor x=[-1.5,a_b]",
    'str mode="sum"', "str ord='fro'", 'str algorithm=""', 'str a="\\"\'\\\\"', "str b='\"\\'\\\\'",
    'str a="x"y', 'str a="x" ', "str a='x\"", 'str a="x\\"', 'str a="a=b"', 'str a="a, b"',
    'str a="a,b"', 'str a="\\="', "str? a='x'", 'str a="x"="y"', "str a=''", 'str a="""',
]  # fmt: skip


def _with_spans(value: object) -> object:
    """``repr`` leaves spans out; the shortcuts must build the same ones."""
    if isinstance(value, tuple):
        return tuple(_with_spans(item) for item in value)
    annotation = getattr(value, "annotation", None)
    return (
        repr(value),
        getattr(value, "span", None),
        None if annotation is None else annotation.span,
    )


def _argument_reference(text: str) -> object:
    try:
        return _with_spans(_transform_piece(text, "argument_item"))
    except Exception as error:
        return type(error).__name__


def _argument_shortcut_agrees(text: str) -> None:
    shortcut = SchemaParser()._plain_argument(text)
    if shortcut is not None:  # None means "ask Lark", which is always allowed
        assert _with_spans(shortcut) == _argument_reference(text), text


def test_argument_shortcut_agrees_on_tricky_pieces() -> None:
    taken = [text for text in ARGUMENTS if SchemaParser()._plain_argument(text) is not None]
    assert "Tensor self" in taken and "int[2]?[] x" in taken and "Tensor(a!) out" in taken
    assert 'str mode="sum"' in taken and "str ord='fro'" in taken
    assert "Tensor(a|b) x" not in taken and "Tensor(a -> *) x" not in taken
    for text in ARGUMENTS:
        _argument_shortcut_agrees(text)


RETURNS = [
    "()", "Tensor", "Tensor(a!)", "Tensor(a)", "Tensor(a)[]", "Tensor[]", "Tensor[] self_out",
    "(Tensor, Tensor)", "(Tensor(a!) values, Tensor(b!) indices)", "(Tensor(a!), Tensor(b!))",
    "(Tensor, Tensor[], Tensor[])", "(float, int)", "(Tensor)", "( )", "(Tensor,Tensor)",
    "Tensor(a -> *)", "Tensor(a -> *) out", "(Tensor(a) primal, Tensor tangent)", "Foo",
    "Tensor(a!)?", "int[2] x", "Tensor(a|b)", "(Tensor, )", "Tensor x y", "(Tensor x, Tensor",
    "__torch__.torch.classes.quantized.Conv2dPackedParamsBase",
]  # fmt: skip


def _returns_reference(text: str) -> object:
    try:
        return _with_spans(_transform_piece(text, "returns"))
    except Exception as error:
        return type(error).__name__


def _returns_shortcut_agrees(text: str) -> None:
    shortcut = SchemaParser()._plain_returns(text)
    if shortcut is not None:
        assert _with_spans(shortcut) == _returns_reference(text), text


def test_returns_shortcut_agrees_on_tricky_lists() -> None:
    taken = [text for text in RETURNS if SchemaParser()._plain_returns(text) is not None]
    assert "()" in taken and "Tensor(a!)" in taken and "(Tensor(a!), Tensor(b!))" in taken
    assert "(Tensor)" not in taken and "Tensor(a -> *) out" not in taken
    for text in RETURNS:
        _returns_shortcut_agrees(text)


_RETURN_ITEM = st.from_regex(
    r"(Tensor|int|float|Foo|_)(\([a-c]!?\)|\(a\|b\))?([?]|\[[0-9]?\]){0,2}( [a-z_]{1,3})?",
    fullmatch=True,
)


@given(st.lists(_RETURN_ITEM, max_size=4), st.booleans())
def test_returns_shortcut_agrees_on_random_lists(items: list[str], parenthesised: bool) -> None:
    text = ", ".join(items)
    _returns_shortcut_agrees(f"({text})" if parenthesised or len(items) != 1 else text)


_TYPE_WORDS = st.sampled_from(["Tensor", "int", "SymInt", "float", "str", "Foo", "Tensor.x", "_"])
_REST = st.from_regex(
    r"(\([a-c]!?\)|\(a\|b\)|\(\))?([?]|\[[0-9]{0,2}\]){0,3} [A-Za-z0-9_]{1,5}"
    r"(=[-A-Za-z0-9_.,\[\]e ]{0,6})?",
    fullmatch=True,
)


@given(st.builds(lambda word, rest: word + rest, _TYPE_WORDS, _REST))
def test_argument_shortcut_agrees_on_random_pieces(text: str) -> None:
    _argument_shortcut_agrees(text)


_QUOTED = st.from_regex(
    r"(str|str\?|int) [a-z]{1,3}=[\"'][-a-z\"'\\=, \n]{0,5}[\"']?.?", fullmatch=True
)


@given(_QUOTED)
def test_argument_shortcut_agrees_on_quoted_defaults(text: str) -> None:
    _argument_shortcut_agrees(text)


def test_the_keyword_only_marker_piece_is_what_lark_makes_of_it() -> None:
    # The "*" shortcut of SchemaParser._argument_piece, against a parse of the piece.
    # A marker piece keeps only its role and that it prints as written.
    shortcut = SchemaParser()._argument_piece("*")
    assert shortcut is not None and tuple(shortcut)[:2] == ("*", True)
    reference = _transform_piece("*", "argument_item")
    assert type(reference).__name__ == "KwargMarker"
    assert reference.span.line == reference.span.end_line == 1  # type: ignore[attr-defined]


@given(st.from_regex(r"[A-Za-z0-9_. -]{0,8}", fullmatch=True))
def test_overload_shortcut_agrees_with_the_grammar(overload: str) -> None:
    try:
        _transform_piece("_." + overload, "operator_name")
        expected = True
    except Exception:
        expected = False
    try:
        SchemaParser()._operator_name("_." + overload)
        got = True
    except Exception:
        got = False
    assert got == expected, overload


def assert_same_with_spans(a: FunctionSchema, b: FunctionSchema) -> None:
    """Equality including the spans ``==`` ignores, and the same printed text.

    ``str(a)`` may be the text the parser remembered (Note [Schemas that print
    as written]); ``schema_text`` prints ``b`` from its parts.
    """
    assert a == b
    assert _schema_spans(a) == _schema_spans(b)
    assert str(a) == schema_text(b)


def _schema_spans(schema: FunctionSchema) -> list[object]:
    spans: list[object] = [schema.span, schema.name_span]
    for item in [*schema.arguments.flat_all, *schema.returns]:
        spans.append(item.span)
        spans.append(item.annotation.span if item.annotation is not None else None)
    return spans


_ITEMS = st.lists(st.sampled_from(["*", "Tensor a", "Tensor(a!) b", "int c", "Tensor(a) d"]))


@given(_ITEMS, st.sampled_from(["()", "Tensor", "(Tensor(a!) x, Tensor y)"]))
def test_argument_sections_agree_with_the_transformer(pieces: list[str], returns: str) -> None:
    """The piecewise parse sorts arguments into sections as ``ToIR.argument_list`` does.

    It declines (None) where the transformer reports a problem, and where the
    schema rules reject the schema; the whole-schema parse then reports it.
    """
    items = [_transform_piece(piece, "argument_item") for piece in pieces]
    transformer = ToIR("", 1, 1)
    expected = transformer.argument_list(items)
    text = f"f({', '.join(pieces)}) -> {returns}"
    got = SchemaParser()._parse_in_pieces(text, "f.yaml", 3, 5)
    if transformer.problems:
        assert got is None, pieces
    if got is None:
        with pytest.raises(SchemacError):
            _parse_whole(text, "f.yaml", 3, 5)
        return
    assert got.arguments == expected, pieces
    assert_same_with_spans(got, _parse_whole(text, "f.yaml", 3, 5))


_PIECES = st.sampled_from(
    ["*", "Tensor self", "Tensor(a!) out", "Tensor(b!) x", "int[2] s=1", "Tensor(a) y",
     "Tensor(a|b) z", "Tensor(a -> *) w", "str r='mean'", "float? f=None", "Tensor?[] i",
     "__torch__.torch.classes.ns.C c"]
)  # fmt: skip
_RETURNS = st.sampled_from(
    ["()", "Tensor", "Tensor(a!)", "(Tensor(a!) values, Tensor(b!) indices)", "Tensor(a)",
     "(Tensor, Tensor)", "Tensor(a -> *) r", "int[]"]
)  # fmt: skip


@given(st.lists(_PIECES, max_size=6), _RETURNS, st.integers(1, 300), st.integers(1, 300))
def test_memoised_pieces_give_what_a_whole_parse_gives(
    pieces: list[str], returns: str, line: int, column: int
) -> None:
    """One parser, so later schemas reuse pieces earlier ones memoised at other places.

    Spans and printed text included (Note [Re-anchoring pieces], Note
    [Schemas that print as written]).
    """
    parser = SchemaParser()
    for name in ("f", "g.out", "h_"):
        text = f"{name}({', '.join(pieces)}) -> {returns}"
        try:
            whole = _parse_whole(text, "f.yaml", line, column)
        except SchemacError as error:
            try:
                parser.parse(text, file="f.yaml", line=line, column=column)
            except SchemacError as again:
                assert again.diagnostics == error.diagnostics
            else:
                raise AssertionError(f"piecewise parse accepted {text!r}") from None
            continue
        got = parser.parse(text, file="f.yaml", line=line, column=column)
        assert_same_with_spans(got, whole)
        line += 1


def test_schemas_remember_their_text_only_when_it_is_canonical() -> None:
    schema = SchemaParser().parse("f(Tensor self, *, int[2] s=1) -> Tensor")
    assert object.__getattribute__(schema, "_text") == str(schema)
    built = FunctionSchema(schema.name, schema.arguments, schema.returns)
    try:
        object.__getattribute__(built, "_text")
    except AttributeError:
        pass
    else:
        raise AssertionError("a schema built from parts has a remembered text")
    assert str(built) == schema_text(schema) == str(schema)


def _public_argument(parser: SchemaParser, text: str, line: int, column: int) -> object:
    try:
        return _with_spans(parser.argument(text, file="f.yaml", line=line, column=column))
    except SchemacError as error:
        return error.diagnostics


def _fragment_argument(text: str, line: int, column: int) -> object:
    try:
        item = _parse_fragment(text, "argument_item", "f.yaml", line, column)
    except SchemacError as error:
        return error.diagnostics
    if not isinstance(item, Argument):
        return "not an argument"
    return _with_spans(item)


def test_public_argument_agrees_with_the_fragment_parse_on_tricky_pieces() -> None:
    parser = SchemaParser()
    for text in [*ARGUMENTS, "Tensor(a|b) x", "Tensor(a -> *) x", "str s='a b'", "int a, int b"]:
        for line, column in ((1, 1), (40, 17)):
            got = _public_argument(parser, text, line, column)
            expected = _fragment_argument(text, line, column)
            if expected == "not an argument":
                assert isinstance(got, tuple) and "expected an argument" in got[0].message
            else:
                assert got == expected, text


@given(
    st.builds(lambda word, rest: word + rest, _TYPE_WORDS, _REST),
    st.integers(1, 500),
    st.integers(1, 120),
)
def test_public_argument_agrees_with_the_fragment_parse(text: str, line: int, column: int) -> None:
    parser = SchemaParser()
    first = _public_argument(parser, text, line, column)
    assert first == _fragment_argument(text, line, column), text
    # And again from the memo, somewhere else.
    assert _public_argument(parser, text, line + 1, column + 2) == _fragment_argument(
        text, line + 1, column + 2
    )
