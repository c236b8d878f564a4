"""What a user sees for a misspelled schema: column, message and hint.

Each case is a common mistake; the expectations were written by hand and say
where the caret goes (1-based column in the schema string), what the message
names, and which hint explains the fix.
"""

from __future__ import annotations

import pytest

from schemac import SchemacError, parse_schema
from schemac.diagnostics import SchemaSemanticError, SchemaSyntaxError

CASES = [
    # (schema, column, message, hint)
    ("add(Tensor self, Tensor other) Tensor", 31, "unexpected ' '", "needs ' -> '"),
    ("add(Tensor self, Tensor other)->Tensor", 31, "unexpected '-'", "one space on each side"),
    ("add(Tensor self, Tensor other) ->Tensor", 31, "unexpected ' '", "one space on each side"),
    ("add(Tensor self,Tensor other) -> Tensor", 16, "unexpected ','", "a comma and one space"),
    ("f(Tensor x) -> (Tensor,Tensor)", 23, "unexpected ','", "a comma and one space"),
    ("f(Tensor  x) -> Tensor", 10, "unexpected ' '", "single spaces only"),
    ("f(Tensor x,\nint y) -> ()", 11, "unexpected ','", "a comma and one space"),
    ("f\n(Tensor x) -> ()", 2, r"unexpected '\n'", "one line"),
    ("add_(Tensor(a)! self) -> Tensor(a!)", 15, "unexpected '!'", "inside the parentheses"),
    ("add_(Tensor(a) ! self) -> Tensor(a!)", 16, "unexpected '!'", "inside the parentheses"),
    ("add_(Tensor(!a) self) -> Tensor(a!)", 13, "unexpected '!'", "before '!'"),
    ("f(Tensor(a !) x) -> ()", 11, "unexpected ' '", "no spaces inside an alias annotation"),
    ("f(Tensor(a->*) x) -> ()", 11, "unexpected '-'", "in an annotation: Tensor(a -> *)"),
    ("f(Tensor (a!) x) -> ()", 10, "unexpected '('", "no space between 'Tensor'"),
    ("f(Tensor?(a!) x) -> ()", 10, "unexpected '('", "Tensor(a!)? rather than Tensor?(a!)"),
    ("f(Tensor[](a) x) -> ()", 11, "unexpected '('", "before '?' or '[]'"),
    ("f(Tensor(A) x) -> ()", 10, "unexpected 'A'", "alias set name (a-z)"),
    ("f(Tensor x = 1) -> Tensor", 11, "unexpected ' '", "no spaces around '='"),
    ("f(Tensor x= 1) -> Tensor", 12, "unexpected ' '", "no spaces around '='"),
    ("f(int[] x=[1, 2]) -> ()", 11, "unexpected '['", "without spaces: [0,1]"),
    ("f(str x='a=b') -> ()", 9, 'unexpected "\'"', "cannot contain '='"),
    ("f(str x='a\nb') -> ()", 9, 'unexpected "\'"', "raw newline"),
    ("f(int[0] x) -> ()", 7, "unexpected '0'", "positive number"),
    ("f(Tensor) -> ()", 9, "unexpected ')'", "a type and a name"),
    ("f(Tensor , int x) -> ()", 10, "unexpected ', '", "a type and a name"),
    ("f(int 1x) -> ()", 7, "unexpected '1'", "start with a letter"),
    ("f(Tensor x) -> (Tensor)", 23, "unexpected ')'", "without parentheses"),
    ("f(Tensor x", 11, "unexpected end of schema", "expected ')' or ', '"),
    ("", 1, "unexpected end of schema", "an operator name"),
    ("f(int x=) -> ()", 9, "unexpected ')'", "a number or a string"),
    # torchgen reads these as free text; schemac wants tokens (docs/schema-parsers.md)
    ("foo bar(int x) -> ()", 4, "unexpected ' '", "[namespace::]name[.overload]"),
    ("a::b::f(int x) -> ()", 5, "unexpected ':'", "[namespace::]name[.overload]"),
    ("f.a.b(int x) -> ()", 4, "unexpected '.'", "[namespace::]name[.overload]"),
    ("f(int x=1+2) -> ()", 10, "unexpected '+'", "a default is a number"),
    ("f(str s=a b) -> ()", 10, "unexpected ' '", "a default is a number"),
    ("f(int x=\u0661) -> ()", 9, "unexpected '\u0661'", "a default is a number"),
    ("f(int x-y) -> ()", 8, "unexpected '-'", "ASCII letters, digits and '_'"),
    ("f(int x) -> int a-b", 18, "unexpected '-'", "ASCII letters, digits and '_'"),
]


@pytest.mark.parametrize(("schema", "column", "message", "hint"), CASES)
def test_syntax_errors_point_at_the_mistake(
    schema: str, column: int, message: str, hint: str
) -> None:
    with pytest.raises(SchemaSyntaxError) as raised:
        parse_schema(schema, file="native_functions.yaml", line=4, column=9)
    (diagnostic,) = raised.value.diagnostics
    assert (diagnostic.span.line, diagnostic.span.column) == (4, 9 + column - 1)
    assert message in diagnostic.message
    assert diagnostic.hint is not None and hint in diagnostic.hint


SEMANTIC_CASES = [
    ("f(Tensr x) -> Tensor", 3, "unknown type 'Tensr'", "did you mean 'Tensor'?"),
    ("f(Tensor x) -> tensor", 16, "unknown type 'tensor'", "did you mean 'Tensor'?"),
    ("f(double x) -> Tensor", 3, "unknown type 'double'", "'float'"),
    ("f(Tensor x) -> Tensor(a -> *)", 16, "unnamed return", "name the return"),
    ("f(Tensor(a|b|c) x) -> ()", 10, "more than two members", "at most two"),
    ("f(Tensor x, *) -> ()", 13, "'*' is not followed", "remove the '*'"),
    ("neg_out(Tensor self) -> Tensor", 1, "ends in '_out'", "overload"),
    ("f(int(a) x) -> ()", 3, "alias annotation on argument 'x'", "only Tensor"),
    ("f(*, Tensor(a!) out) -> (Tensor, Tensor)", 1, "1 out arguments but 2 returns", "in order"),
]


@pytest.mark.parametrize(("schema", "column", "message", "hint"), SEMANTIC_CASES)
def test_semantic_errors_point_at_the_part(
    schema: str, column: int, message: str, hint: str
) -> None:
    with pytest.raises(SchemaSemanticError) as raised:
        parse_schema(schema)
    diagnostic = raised.value.diagnostics[0]
    assert diagnostic.span.column == column
    assert message in diagnostic.message
    assert diagnostic.hint is not None and hint in diagnostic.hint


def test_every_problem_in_a_schema_is_reported_at_once() -> None:
    with pytest.raises(SchemacError) as raised:
        parse_schema("f(Tensr x, flaot y) -> Tensor(a -> *)")
    messages = [d.message for d in raised.value.diagnostics]
    assert messages == [
        "unknown type 'Tensr'",
        "unknown type 'flaot'",
        "an unnamed return cannot carry the annotation '(a -> *)'",
    ]


def test_rendered_report_has_caret_under_the_mistake() -> None:
    text = "add(Tensor self,Tensor other) -> Tensor"
    with pytest.raises(SchemacError) as raised:
        parse_schema(text, file="x.yaml")
    assert raised.value.render({"x.yaml": text}) == (
        "x.yaml:1:16: error: invalid schema: unexpected ','\n"
        "  add(Tensor self,Tensor other) -> Tensor\n"
        "                 ^\n"
        "  hint: separate arguments and returns with ', ' (a comma and one space)"
    )


def test_non_string_input_is_a_schemac_error() -> None:
    with pytest.raises(SchemaSyntaxError):
        parse_schema(42)  # type: ignore[arg-type]
