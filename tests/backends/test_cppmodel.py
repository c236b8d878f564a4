"""The C++ model: string literals, identifiers, functions and namespaces.

The literal tests let the C++ compiler be the judge: a generated file
``static_assert``s that each literal holds exactly the UTF-8 bytes of its
text, evaluated at compile time under ``-fsyntax-only``.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schemac.backends.cppmodel import (
    CPP_KEYWORDS,
    CppFunction,
    CppParameter,
    check_identifier,
    checked_identifier,
    cpp_string_literal,
    identifier_problem,
    namespace_block,
)
from schemac.diagnostics import InputError, Span

TRICKY_TEXTS = (
    "",
    "plain",
    'say "hi"',
    "back\\slash",
    "trailing backslash\\",
    "new\nline\r\n",
    "tab\tbell\avt\vff\fbs\b",
    "nul\x00inside",
    "??= ??( ??/ ??) ??' ??< ??! ??> ??-",
    "???",
    "?",
    "caf\u00e9 \u00e9a",  # \xe9 followed by a hex digit
    "\x7f\x01\x1f",
    "\u20ac euro, \U0001f600 emoji",
    "\\x41 is not A",
    "*/ /* // not comments",
    "'single' quotes",
    "%d %s {} ${x}",
    "trailing ?",
    "\u2028line separator",
    'add.Tensor(Tensor self, str reduce="mean") -> Tensor',
)


def _assertion(index: int, text: str) -> str:
    data = text.encode("utf-8")
    byte_list = ", ".join(str(b) for b in data)
    return (
        f"static_assert(same_bytes({cpp_string_literal(text)}, "
        f'std::array<unsigned char, {len(data)}>{{{{{byte_list}}}}}), "text {index}");'
    )


_PRELUDE = """\
#include <array>
#include <cstddef>

template <std::size_t N, std::size_t M>
constexpr bool same_bytes(const char (&literal)[N], const std::array<unsigned char, M>& bytes) {
  if (N != M + 1 || literal[M] != '\\0') {
    return false;
  }
  for (std::size_t i = 0; i < M; ++i) {
    if (static_cast<unsigned char>(literal[i]) != bytes[i]) {
      return false;
    }
  }
  return true;
}
"""


def _literal_file(tmp_path: Path, texts: tuple[str, ...]) -> Path:
    body = "\n".join(_assertion(i, t) for i, t in enumerate(texts))
    source = tmp_path / "literals.cpp"
    source.write_text(_PRELUDE + body + "\n", encoding="utf-8")
    return source


@pytest.mark.parametrize("flags", [(), ("-trigraphs",), ("-finput-charset=UTF-8",)])
def test_tricky_literals_hold_exactly_their_utf8_bytes(tmp_path, compile_cpp, flags) -> None:
    result = compile_cpp(_literal_file(tmp_path, TRICKY_TEXTS), (), "-Werror", *flags)
    assert result.returncode == 0, result.stderr


def test_wrong_bytes_are_caught_by_the_check(tmp_path, compile_cpp) -> None:
    # The harness itself must be able to fail: a literal with the wrong content.
    source = _literal_file(tmp_path, ("abc",))
    source.write_text(
        source.read_text().replace('same_bytes("abc"', 'same_bytes("abd"'), encoding="utf-8"
    )
    result = compile_cpp(source, ())
    assert result.returncode != 0
    assert "text 0" in result.stderr


@settings(max_examples=20, deadline=None)
@given(st.lists(st.text(max_size=12), min_size=1, max_size=12))
def test_random_texts_compile_to_their_bytes(tmp_path_factory, compile_cpp, texts) -> None:
    directory = tmp_path_factory.mktemp("literals")
    result = compile_cpp(_literal_file(directory, tuple(texts)), (), "-trigraphs")
    assert result.returncode == 0, result.stderr


@given(st.text())
def test_literal_is_one_line_of_printable_ascii(text: str) -> None:
    literal = cpp_string_literal(text)
    assert literal.startswith('"') and literal.endswith('"')
    assert all(" " <= c <= "~" for c in literal)
    assert "??" not in literal


def test_ordinary_text_is_unchanged_apart_from_quotes() -> None:
    assert cpp_string_literal("add(Tensor self) -> Tensor") == '"add(Tensor self) -> Tensor"'
    assert cpp_string_literal('str a="x"') == '"str a=\\"x\\""'


# -- identifiers -----------------------------------------------------------------
@pytest.mark.parametrize("name", ["add", "_foo", "__and__", "x1", "Tensor", "self", "and_"])
def test_valid_identifiers(name: str) -> None:
    assert identifier_problem(name) is None
    assert checked_identifier(name) == name


@pytest.mark.parametrize(
    ("name", "fragment"),
    [
        ("", "not a valid C++ identifier"),
        ("1x", "not a valid C++ identifier"),
        ("a-b", "not a valid C++ identifier"),
        ("a b", "not a valid C++ identifier"),
        ("caf\u00e9", "not a valid C++ identifier"),
        ("ns::x", "not a valid C++ identifier"),
        ("class", "C++ keyword"),
        ("and", "C++ keyword"),
        ("xor_eq", "C++ keyword"),
        ("co_await", "C++ keyword"),
        ("requires", "C++ keyword"),
    ],
)
def test_invalid_identifiers_are_positioned_errors(name: str, fragment: str) -> None:
    span = Span("native_functions.yaml", 12, 9, 12, 9 + max(len(name), 1))
    with pytest.raises(InputError) as raised:
        checked_identifier(name, span)
    (diagnostic,) = raised.value.diagnostics
    assert diagnostic.span == span
    assert fragment in diagnostic.message
    assert str(raised.value).startswith("native_functions.yaml:12:9: error:")
    assert check_identifier(name, span) == diagnostic


def test_keyword_list_is_the_compilers(tmp_path, compile_cpp) -> None:
    # Every listed keyword must be rejected by g++ as a variable name.
    for keyword in sorted(CPP_KEYWORDS):
        source = tmp_path / f"kw_{keyword}.cpp"
        source.write_text(f"int {keyword} = 0;\n")
        assert compile_cpp(source, ()).returncode != 0, keyword
    source = tmp_path / "not_keyword.cpp"
    source.write_text("int override = 0; int final = 0; int import = 0; int module = 0;\n")
    assert compile_cpp(source, ()).returncode == 0


# -- functions and namespaces ---------------------------------------------------------
ADD = CppFunction(
    return_type="int",
    name="add",
    parameters=(CppParameter("int", "a"), CppParameter("int", "b", default="1")),
    declaration_specifiers=("extern",),
)


def test_declaration_and_definition_come_from_one_object() -> None:
    assert ADD.declaration() == "extern int add(int a, int b=1);"
    assert ADD.definition("return a + b;") == "int add(int a, int b) {\n  return a + b;\n}"


def test_member_function_with_qualifiers() -> None:
    method = CppFunction(
        return_type="int",
        name="size",
        qualifiers=("const", "noexcept"),
        declaration_qualifiers=("override",),
        declaration_specifiers=("virtual",),
        scope="Box",
    )
    assert method.declaration() == "virtual int size() const noexcept override;"
    assert method.definition("return 1;").startswith("int Box::size() const noexcept {")


def test_generated_functions_compile(tmp_path, compile_cpp) -> None:
    method = CppFunction("int", "twice", (CppParameter("int", "x", "2"),), qualifiers=("const",))
    generic = CppFunction(
        "T", "identity", (CppParameter("T", "value"),), template_parameters=("typename T",)
    )
    body = "\n".join(
        [
            namespace_block("demo::inner", ADD.declaration().replace("extern ", "")),
            "struct Box {\n  " + method.declaration() + "\n};",
            namespace_block(
                "demo::inner",
                ADD.definition("return a + b;") + "\n" + generic.definition("return value;"),
            ),
            "int Box::twice(int x) const {\n  return 2 * x;\n}",
            namespace_block("", "int unused() { return demo::inner::add(1); }"),
        ]
    )
    source = tmp_path / "functions.cpp"
    source.write_text(body + "\n")
    result = compile_cpp(source, (), "-Wall", "-Werror", "-Wno-unused-function")
    assert result.returncode == 0, result.stderr + body


def test_namespace_block_names_its_closing_brace() -> None:
    assert namespace_block("at::native", "int x;") == (
        "namespace at::native {\n\nint x;\n\n} // namespace at::native\n"
    )
    assert namespace_block("", "") == "namespace {\n} // namespace\n"
