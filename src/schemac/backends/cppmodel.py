"""A small model of the C++ that schemac prints, and C++ lexical safety.

One :class:`CppFunction` object prints both its declaration and its definition,
so the two can never drift apart (a parameter renamed in one and not the other,
a default repeated in the definition).  :func:`namespace_block` wraps text in
namespaces.  Everything that puts text from the YAML files into C++ goes
through :func:`cpp_string_literal` (for strings) or :func:`checked_identifier`
(for names), so no input can produce C++ that does not compile, or compiles to
something other than what the input said.
"""

from __future__ import annotations

import re

import attrs

from schemac.diagnostics import NO_SPAN, Diagnostic, InputError, Span

# ---------------------------------------------------------------------------
# Names

#: Keywords of C++20 and the alternative operator tokens ([lex.key], [lex.digraph]).
# fmt: off
CPP_KEYWORDS: frozenset[str] = frozenset(
    {
        "alignas", "alignof", "and", "and_eq", "asm", "auto", "bitand", "bitor", "bool",
        "break", "case", "catch", "char", "char8_t", "char16_t", "char32_t", "class", "compl",
        "concept", "const", "consteval", "constexpr", "constinit", "const_cast", "continue",
        "co_await", "co_return", "co_yield", "decltype", "default", "delete", "do", "double",
        "dynamic_cast", "else", "enum", "explicit", "export", "extern", "false", "float", "for",
        "friend", "goto", "if", "inline", "int", "long", "mutable", "namespace", "new",
        "noexcept", "not", "not_eq", "nullptr", "operator", "or", "or_eq", "private",
        "protected", "public", "register", "reinterpret_cast", "requires", "return", "short",
        "signed", "sizeof", "static", "static_assert", "static_cast", "struct", "switch",
        "template", "this", "thread_local", "throw", "true", "try", "typedef", "typeid",
        "typename", "union", "unsigned", "using", "virtual", "void", "volatile", "wchar_t",
        "while", "xor", "xor_eq",
    }
)
# fmt: on

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def identifier_problem(name: str) -> str | None:
    """Why ``name`` cannot be a C++ identifier, or None if it can."""
    if not _IDENTIFIER.fullmatch(name):
        return (
            f"'{name}' is not a valid C++ identifier (letters, digits and '_',"
            " not starting with a digit)"
        )
    if name in CPP_KEYWORDS:
        return f"'{name}' is a C++ keyword and cannot name a C++ entity"
    return None


def check_identifier(name: str, span: Span = NO_SPAN) -> Diagnostic | None:
    """The diagnostic for ``name`` if it is not a usable C++ identifier."""
    problem = identifier_problem(name)
    if problem is None:
        return None
    return Diagnostic(span, problem, hint="rename it in the YAML file")


def checked_identifier(name: str, span: Span = NO_SPAN) -> str:
    """``name`` itself if it is a usable C++ identifier; else an :class:`InputError` at ``span``."""
    diagnostic = check_identifier(name, span)
    if diagnostic is not None:
        raise InputError([diagnostic])
    return name


# ---------------------------------------------------------------------------
# String literals

_NAMED_ESCAPES = {
    "\a": "\\a",
    "\b": "\\b",
    "\t": "\\t",
    "\n": "\\n",
    "\v": "\\v",
    "\f": "\\f",
    "\r": "\\r",
    '"': '\\"',
    "\\": "\\\\",
}


def cpp_string_literal(text: str) -> str:
    """A narrow C++ string literal whose bytes are ``text`` encoded as UTF-8.

    Printable ASCII stands for itself.  Quotes, backslashes and control
    characters get their escapes; every other byte (non-ASCII UTF-8, DEL) is a
    three-digit octal escape.  Octal rather than ``\\x`` because a hex escape
    swallows every following hex digit (``"\\xe9a"`` is one char); rather than
    ``\\u`` because a universal character name is converted to the compiler's
    execution character set, which is not UTF-8 everywhere.  The second ``?``
    of ``??`` is escaped so that no trigraph can form under ``-trigraphs``.
    """
    # Nearly every literal (schemas, names) has nothing to escape, and the
    # pattern's scan, slowed by its lookbehind, costs ~3 us a schema to say so.
    printable = text.isascii() and text.isprintable()
    if printable and '"' not in text and "\\" not in text and "??" not in text:
        return f'"{text}"'
    return '"' + _NEEDS_ESCAPE.sub(_escape, text) + '"'


#: A character that cannot stand for itself: not printable ASCII, ``"``, ``\``,
#: or a ``?`` right after another ``?``.
_NEEDS_ESCAPE = re.compile(r"[^ !#-\[\]-~]|(?<=\?)\?")


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    if char == "?":
        return "\\?"
    named = _NAMED_ESCAPES.get(char)
    if named is not None:
        return named
    return "".join(f"\\{byte:03o}" for byte in char.encode("utf-8", "surrogatepass"))


# ---------------------------------------------------------------------------
# Functions and namespaces


@attrs.frozen
class CppParameter:
    """``type name`` with an optional default, printed only in declarations."""

    type: str
    name: str
    default: str | None = None

    def declaration(self) -> str:
        text = f"{self.type} {self.name}"
        return f"{text}={self.default}" if self.default is not None else text

    def definition(self) -> str:
        return f"{self.type} {self.name}"


@attrs.frozen
class CppFunction:
    """A C++ function: one object, one declaration, one definition.

    ``specifiers`` precede both forms (``inline``, ``constexpr``);
    ``declaration_specifiers`` only the declaration (``TORCH_API``, ``static``,
    ``virtual``).  ``qualifiers`` follow the parameter list in both (``const``,
    ``noexcept``); ``override`` belongs in ``declaration_qualifiers``.
    ``scope`` qualifies the name in an out-of-class definition
    (``Tensor`` for ``Tensor::add``).
    """

    return_type: str
    name: str
    parameters: tuple[CppParameter, ...] = ()
    specifiers: tuple[str, ...] = ()
    declaration_specifiers: tuple[str, ...] = ()
    qualifiers: tuple[str, ...] = ()
    declaration_qualifiers: tuple[str, ...] = ()
    scope: str | None = None
    template_parameters: tuple[str, ...] = ()

    def _head(
        self, prefix: tuple[str, ...], name: str, params: str, suffix: tuple[str, ...]
    ) -> str:
        template = (
            f"template <{', '.join(self.template_parameters)}>\n"
            if self.template_parameters
            else ""
        )
        words = " ".join((*prefix, self.return_type, f"{name}({params})", *suffix))
        return template + words

    def declaration(self) -> str:
        """``TORCH_API at::Tensor add(const at::Tensor & self, ...);``"""
        params = ", ".join(p.declaration() for p in self.parameters)
        return (
            self._head(
                (*self.declaration_specifiers, *self.specifiers),
                self.name,
                params,
                (*self.qualifiers, *self.declaration_qualifiers),
            )
            + ";"
        )

    def definition(self, body: str) -> str:
        """The function with ``body`` (statements, any indentation) between braces."""
        params = ", ".join(p.definition() for p in self.parameters)
        name = f"{self.scope}::{self.name}" if self.scope else self.name
        head = self._head(self.specifiers, name, params, self.qualifiers)
        return f"{head} {{\n{_indent(body)}}}"


def _indent(body: str, by: str = "  ") -> str:
    lines = body.strip("\n").splitlines()
    return "".join(f"{by}{line}\n" if line.strip() else "\n" for line in lines)


def namespace_block(namespace: str, body: str) -> str:
    """``body`` inside ``namespace a::b { ... }``; an empty name gives an anonymous one.

    The closing brace carries the name so a reader of a long file knows what
    closes there.
    """
    opening = f"namespace {namespace} {{" if namespace else "namespace {"
    closing = f"}} // namespace {namespace}" if namespace else "} // namespace"
    text = body.strip("\n")
    return f"{opening}\n\n{text}\n\n{closing}\n" if text else f"{opening}\n{closing}\n"
