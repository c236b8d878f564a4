"""The reference parsers, and the named classes of text schemac rejects on purpose.

torchgen's ``FunctionSchema.parse`` is the reference for what a schema is:
anything it raises on is a rejection.  It reads names and defaults as free text
between separators, so it accepts strings no schema file should contain.
schemac is stricter there, and only there; each such class of input is one
predicate below, over torchgen's parsed model, with a docstring saying why
schemac refuses it.  docs/schema-parsers.md lists the same classes.

c10's parser (``torch._C.parse_schema``) is consulted only to document where
the two PyTorch parsers disagree; see :mod:`tests.grammar.c10_classes`.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from schemac.frontend.grammar import schema_parser


def torchgen_parse(text: str) -> Any | None:
    """torchgen's model of ``text``, or None if torchgen rejects it."""
    from torchgen.model import FunctionSchema

    try:
        return FunctionSchema.parse(text)
    except Exception:  # any exception is torchgen's way of saying no
        return None


def c10_parse(text: str) -> str | None:
    """c10's canonical text for ``text``, or None if c10 rejects it."""
    import torch

    try:
        return str(torch._C.parse_schema(text))
    except Exception:
        return None


def _terminal(name: str) -> re.Pattern[str]:
    """A terminal's regex, taken from the shipped grammar (not restated here)."""
    for terminal in schema_parser().terminals:
        if terminal.name == name:
            return re.compile(terminal.pattern.to_regexp())
    raise KeyError(name)


_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_OPERATOR_NAME = re.compile(r"([A-Za-z_][A-Za-z0-9_]*::)?[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z0-9_]+)?")
_LITERALS = tuple(_terminal(t) for t in ("NUMBER", "STRING", "LIST", "ARG_NAME"))


def operator_name_not_identifier(schema: Any) -> bool:
    """The namespace, base name or overload is not an ASCII identifier.

    torchgen takes everything before the first '(' as the name, so it accepts
    'foo bar', 'a::b::c', 'föo', '\\nf' and 'foo.a.b'.  None of these can
    become the C++ and Python identifiers the name is used for.
    """
    return _OPERATOR_NAME.fullmatch(str(schema.name)) is None


def name_not_identifier(schema: Any) -> bool:
    """An argument or return name is not an ASCII identifier.

    torchgen takes whatever follows the last space as the name ('int 1x',
    'Tensor a-b', 'int x(').  Names become C++ parameters and Python keywords.
    """
    names = [a.name for a in schema.arguments.flat_all]
    names += [r.name for r in schema.returns if r.name is not None]
    return any(_IDENTIFIER.fullmatch(n) is None for n in names)


def default_not_literal(schema: Any) -> bool:
    """A default is not a number, string, list or identifier literal.

    torchgen keeps whatever follows '=' ('int x=)', 'str s=a b', "str s='x",
    'int x=1+2'); a default must be translated to C++ and Python, which
    needs it to be one of the literal forms schemas actually use.
    """
    return any(
        a.default is not None and not any(p.fullmatch(a.default) for p in _LITERALS)
        for a in schema.arguments.flat_all
    )


#: Every class of text torchgen accepts and schemac rejects on purpose.
STRICTER_THAN_TORCHGEN: dict[str, Callable[[Any], bool]] = {
    "operator_name_not_identifier": operator_name_not_identifier,
    "name_not_identifier": name_not_identifier,
    "default_not_literal": default_not_literal,
}


def mutation_returns_nothing(schema: Any) -> bool:
    """An in-place operator with a ``Tensor`` self, or an out= operator with
    ``Tensor`` outs, that returns ``()``.

    torchgen wants such operators to return the mutated tensors (for method
    chaining); PyTorch's dispatcher and custom-operator API accept ``-> ()``,
    and a custom operator must use it (Note [Mutating operators may return
    nothing] in schemac.ir.schema).  Checked on schemac's parse.
    """
    if schema.returns:
        return False
    args = schema.arguments
    if args.out:
        return True
    return bool(schema.name.name.inplace and args.self_arg is not None)


#: Every class of text torchgen rejects and schemac accepts on purpose.
LOOSER_THAN_TORCHGEN: dict[str, Callable[[Any], bool]] = {
    "mutation_returns_nothing": mutation_returns_nothing,
}


def looseness_classes(schema: Any) -> list[str]:
    """The documented classes a schema torchgen rejects and schemac accepts falls in."""
    return [name for name, predicate in LOOSER_THAN_TORCHGEN.items() if predicate(schema)]


def strictness_classes(schema: Any) -> list[str]:
    """The documented classes a torchgen-accepted schema falls in."""
    return [name for name, predicate in STRICTER_THAN_TORCHGEN.items() if predicate(schema)]
