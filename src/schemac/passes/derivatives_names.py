"""Free names in a derivative formula, and which of them exist.

PyTorch pastes formulas verbatim into generated C++, so a misspelt argument
(``self.sym_size(dimm)``) or helper surfaces as a compiler error in a
generated file far from its cause.  Here each formula is tokenised just enough
to find its *free* names: identifiers that are not members (``x.foo``,
``x->foo``), not qualified (``at::foo``, ``std::vector``), not inside a
comment or string, and not a lambda's own parameters.  Each is classified as a
call (followed by ``(`` or ``{``) or a variable; the caller decides which names
are in scope and reports the rest.
"""

from __future__ import annotations

import re
from collections.abc import Container
from typing import NamedTuple

import attrs

_TOKEN = re.compile(
    r"(?P<skip>/\*.*?\*/|//[^\n]*|\"(?:[^\"\\]|\\.)*\"|'(?:[^'\\]|\\.)*')"
    r"|(?P<number>\d[\w.]*)"
    r"|(?P<ident>[A-Za-z_]\w*)"
    r"|(?P<op>::|->|\S)",
    re.S,
)


@attrs.frozen
class FreeName:
    name: str
    #: Offset of the name in the formula text.
    offset: int
    is_call: bool


class _Token(NamedTuple):
    kind: str
    text: str
    offset: int


def _tokens(formula: str) -> list[_Token]:
    # A named tuple, not an attrs class: ~17,000 tokens for torch's formulas.
    return [
        _Token(match.lastgroup or "op", match.group(), match.start())
        for match in _TOKEN.finditer(formula)
        if match.lastgroup != "skip"
    ]


def _lambda_parameters(tokens: list[_Token]) -> set[str]:
    """Names declared as parameters of ``[...](T a, U b){...}`` lambdas."""
    names: set[str] = set()
    for index, token in enumerate(tokens[:-1]):
        if token.text != "]" or tokens[index + 1].text != "(":
            continue
        depth = 0
        last_ident: str | None = None
        for inner in tokens[index + 1 :]:
            if inner.text == "(":
                depth += 1
            elif inner.text == ")":
                depth -= 1
                if depth == 0:
                    if last_ident:
                        names.add(last_ident)
                    break
            elif inner.text == "," and depth == 1:
                if last_ident:
                    names.add(last_ident)
                last_ident = None
            elif inner.kind == "ident":
                last_ident = inner.text
    return names


def free_names(formula: str) -> tuple[FreeName, ...]:
    tokens = _tokens(formula)
    local = _lambda_parameters(tokens)
    found: list[FreeName] = []
    for index, token in enumerate(tokens):
        if token.kind != "ident" or token.text in local:
            continue
        before = tokens[index - 1].text if index > 0 else ""
        after = tokens[index + 1].text if index + 1 < len(tokens) else ""
        if before in (".", "->", "::") or after == "::":
            continue
        found.append(FreeName(token.text, token.offset, after in ("(", "{")))
    return tuple(found)


#: Every identifier-shaped run, with what directly precedes it (``.``, ``->``,
#: ``::``) and what follows it (``::``, ``(``, ``{``, after optional spaces).
_CANDIDATE = re.compile(r"(\.|->|::)?\s*([A-Za-z_]\w*)(?=(\s*(?:::|\(|\{))?)")


def all_names_known(
    formula: str, known: Container[str], callables: Container[str], *more: Container[str]
) -> bool:
    """Whether every free name of ``formula`` is known, decided without tokenising.

    A sound shortcut for the common case where a formula has no unknown name:
    True only if :func:`free_names` would give nothing that is neither in
    ``known`` (or ``more``) nor, for a call, in ``callables``.  Every free name
    is also an identifier-shaped run here: a run found inside a comment, a
    string or a number, or a lambda's parameter, is checked all the same, and
    a member or qualifier is skipped exactly when :func:`free_names` skips it.
    So a False only means "tokenise and see".
    """
    for before, name, after in _CANDIDATE.findall(formula):
        if before or after.endswith(":"):
            continue  # x.name, x->name, ns::name, name::x
        if name in known:
            continue
        for words in more:  # a loop, not any(): ~10,000 names per run get here
            if name in words:
                break
        else:
            if after and name in callables:
                continue  # followed by "(" or "{": a call
            return False
    return True
