"""Lark's syntax errors -> one schemac diagnostic with a useful hint.

This is the only place that looks inside Lark's exceptions: it finds the
offending column, names what was found and what was expected in the schema
language's own words, and recognises the common mistakes (missing ' -> ',
',' without a space, misplaced alias annotations, ...).
"""

from __future__ import annotations

import re

from lark.exceptions import (
    UnexpectedCharacters,
    UnexpectedEOF,
    UnexpectedInput,
    UnexpectedToken,
)

from schemac.diagnostics import (
    Diagnostic,
    Span,
    did_you_mean,
)
from schemac.ir.types import (
    BASE_TYPE_NAMES,
)


def syntax_diagnostic(
    text: str, error: UnexpectedInput, file: str, line: int, column: int
) -> Diagnostic:
    # Offsets, not Lark's line/column: a stray newline inside the text would
    # otherwise move the caret to a line the schema does not have in its file.
    pos = getattr(error, "pos_in_stream", None)
    at_end = isinstance(error, UnexpectedEOF) or (
        isinstance(error, UnexpectedToken) and error.token.type == "$END"
    )
    if isinstance(error, UnexpectedToken) and not at_end:
        pos = error.token.start_pos
    if at_end or not isinstance(pos, int) or pos < 0:
        pos = len(text)
    col = min(pos, len(text)) + 1
    span = Span.point(file, 1, col).shifted(line, column)
    found = _found_text(text, error, col)
    message = f"invalid schema: unexpected {found}"
    return Diagnostic(span, message, _syntax_hint(text, col, _expected(error)))


def _found_text(text: str, error: UnexpectedInput, col: int) -> str:
    if isinstance(error, UnexpectedEOF) or col > len(text):
        return "end of schema"
    if isinstance(error, UnexpectedToken) and error.token.type == "$END":
        return "end of schema"
    found = str(error.token) if isinstance(error, UnexpectedToken) else text[col - 1]
    if found.isprintable() and "'" not in found:
        return f"'{found}'"
    return repr(found)


def _expected(error: UnexpectedInput) -> frozenset[str]:
    if isinstance(error, UnexpectedToken):
        return frozenset(error.expected)
    if isinstance(error, UnexpectedCharacters):
        return frozenset(error.allowed or ())
    return frozenset()


_READABLE_TERMINALS = {
    "ARROW": "' -> '",
    "SEP": "', '",
    "SPACE": "' '",
    "EQUALS": "'='",
    "LPAR": "'('",
    "RPAR": "')'",
    "ARG_NAME": "a name",
    "TYPE_NAME": "a type",
    "BASE_NAME": "an operator name",
    "OVERLOAD": "an overload name",
    "NUMBER": "a number",
    "STRING": "a string",
    "LIST": "a list",
    "DOT": "'.'",
    "STAR": "'*'",
    "QUESTION": "'?'",
    "LSQB": "'['",
    "CLOSE_BRACKET": "']'",
    "SIZE": "a list size",
    "ALIAS": "an alias set name (a-z)",
    "ALIAS_ARROW": "' -> '",
    "VBAR": "'|'",
    "WRITE": "'!'",
    "NAMESPACE": "a namespace",
}

#: Spellings from other languages that people reach for, and the schema type.
_TYPE_SYNONYMS = {
    "double": "float",
    "long": "int",
    "int64_t": "int",
    "Int": "int",
    "boolean": "bool",
    "Bool": "bool",
    "string": "str",
    "String": "str",
    "Tensors": "Tensor[]",
    "TensorList": "Tensor[]",
    "IntList": "int[]",
    "Dtype": "ScalarType",
    "dtype": "ScalarType",
}


def unknown_type_hint(name: str) -> str:
    synonym = _TYPE_SYNONYMS.get(name)
    if synonym is not None:
        return f"schemas spell this type '{synonym}'"
    return did_you_mean(name, BASE_TYPE_NAMES) or "known types: " + ", ".join(BASE_TYPE_NAMES)


def _syntax_hint(text: str, col: int, expected: frozenset[str]) -> str | None:
    """A hint for the common ways a schema is misspelled, else what was expected.

    Each check looks at the text around the error (``before`` it and the
    ``rest`` from it on), so the hint is about the mistake the parser stopped
    at, not some other oddity elsewhere in the string.
    """
    before, rest = text[: col - 1], text[col - 1 :]
    for check in _HINT_CHECKS:
        hint = check(text, before, rest, expected)
        if hint is not None:
            return hint
    readable = sorted({_READABLE_TERMINALS.get(t, t.lower()) for t in expected})
    return "expected " + " or ".join(readable) if readable else None


def _hint_arrow(text: str, before: str, rest: str, expected: frozenset[str]) -> str | None:
    if re.match(r" ?->|-> ?|=>", rest) or (before.endswith(" ") and rest.startswith("->")):
        if re.search(r"\([a-z|]+!?$", before):
            return "write ' -> ' with one space on each side in an annotation: Tensor(a -> *)"
        return "write ' -> ' between the arguments and the returns, one space on each side"
    if (
        " -> " not in text
        and "->" not in text
        and "(" in before
        and before.count("(") == before.count(")")
    ):
        return "a schema needs ' -> ' and a return type, e.g. 'foo(Tensor self) -> Tensor'"
    return None


def _hint_separator(text: str, before: str, rest: str, expected: frozenset[str]) -> str | None:
    if rest.startswith(",") and not rest.startswith(", "):
        return "separate arguments and returns with ', ' (a comma and one space)"
    if rest.startswith(" ,"):
        return "no space before ','; separate items with ', '"
    if rest.startswith(" ") and (before.endswith(" ") or rest.startswith("  ")):
        return "schemas are written in canonical form: single spaces only"
    if rest[:1] in ("\n", "\r", "\t"):
        return "a schema is one line, with single spaces between its parts"
    return None


def _hint_annotation(text: str, before: str, rest: str, expected: frozenset[str]) -> str | None:
    if rest.startswith("!") and re.search(r"\([a-z|]+\) ?$", before):
        return "the '!' goes inside the parentheses: Tensor(a!)"
    if rest.startswith("!") and before.endswith("("):
        return "the alias set comes before '!': Tensor(a!)"
    if re.search(r"\([a-z|]*!?$", before) and rest[:1] == " " and not rest.startswith(" -> "):
        return "no spaces inside an alias annotation: Tensor(a!), Tensor(a -> *)"
    if rest.startswith("(") and re.search(r"(\?|\])$", before):
        return (
            "the alias annotation comes right after 'Tensor', before '?' or '[]': "
            "Tensor(a!)? rather than Tensor?(a!)"
        )
    if rest.startswith(" (") or (rest.startswith("(") and before.endswith(" ")):
        return "no space between 'Tensor' and its alias annotation: Tensor(a!)"
    return None


def _hint_default(text: str, before: str, rest: str, expected: frozenset[str]) -> str | None:
    if rest.startswith((" =", "= ")) or (before.endswith("=") and rest.startswith(" ")):
        return "no spaces around '=' in a default: int dim=0"
    if re.search(r"=\[[^\]]*$", before) or (before.endswith("=") and re.match(r"\[[^\]]*, ", rest)):
        return "list defaults are written without spaces: [0,1]"
    if rest[:1] in ("'", '"') and "STRING" in expected:
        return (
            "a string default cannot contain '=', ', ' or a raw newline (write \\n), "
            "and must be closed"
        )
    if re.search(r"\[$", before) and rest[:1] == "0":
        return "a list size is a positive number without leading zeros; write int[] for any size"
    return None


def _hint_structure(text: str, before: str, rest: str, expected: frozenset[str]) -> str | None:
    if rest[:1] in (",", ")") and expected <= {"SPACE", "ARG_NAME"}:
        return "every argument needs a type and a name, e.g. 'Tensor self'"
    if expected == {"ARG_NAME"} and rest[:1].isdigit():
        return "names start with a letter or '_'"
    if rest.startswith(")") and expected == {"SEP"} and " -> (" in before:
        return "a single return is written without parentheses: '-> Tensor'"
    return None


def _hint_names(text: str, before: str, rest: str, expected: frozenset[str]) -> str | None:
    """Names and defaults are tokens here, where torchgen reads free text."""
    if not rest or rest[0] in ",)":
        return None
    if before and "(" not in before:
        return (
            "an operator name is [namespace::]name[.overload], "
            "each of ASCII letters, digits and '_'"
        )
    item = before.rsplit(", ", 1)[-1].rsplit("(", 1)[-1]
    if "=" in item:
        return "a default is a number, a 'string', a list such as [0,1], or a name such as None"
    if re.search(r" [A-Za-z_][A-Za-z0-9_]*$", before) and rest[0] != " ":
        return "argument and return names are ASCII letters, digits and '_'"
    return None


_HINT_CHECKS = (
    _hint_arrow,
    _hint_separator,
    _hint_annotation,
    _hint_default,
    _hint_structure,
    _hint_names,
)
