"""What the schema transformer's rules share with the parser's shortcuts.

:mod:`schemac.frontend.schema_transformer` applies these while it turns a Lark
parse tree into IR; :mod:`schemac.frontend.schema_parser` applies them
directly when a piece of text takes the Token shortcut (Note [Token shortcut])
and was never parsed.  This module imports nothing from Lark, so that a
library whose schemas all take the shortcuts never loads it (Note [Lark on
demand] in :mod:`schemac.frontend.schema_parser`).
"""

from __future__ import annotations

import re

from schemac.diagnostics import Diagnostic, Span
from schemac.ir.names import AUGMENTED_ASSIGNMENT_NAMES, FUNCTIONAL_SUFFIX, BaseOperatorName


class Located:
    """A value with the span it was parsed from, passed between rules."""

    __slots__ = ("span", "value")

    def __init__(self, value: object, span: Span) -> None:
        self.value = value
        self.span = span


class KwargMarker:
    __slots__ = ("span",)

    def __init__(self, span: Span) -> None:
        self.span = span


class SemanticProblems(Exception):
    """Carries semantic diagnostics out of the transformer."""

    def __init__(self, diagnostics: list[Diagnostic]) -> None:
        super().__init__(diagnostics)
        self.diagnostics = diagnostics


_DUNDER = re.compile(r"__([^_]+)__")


def base_operator_name(
    text: str, namespace: str | None, span: Span, problems: list[Diagnostic]
) -> BaseOperatorName:
    """The ``operator_name`` rule's base name; what is wrong with it goes to ``problems``.

    A function rather than only a transformer method: the parser's token
    shortcut names ~1,500 base operators per load without a transformer.
    """
    if text.endswith("_out"):
        problems.append(
            Diagnostic(
                span,
                f"operator name '{text}' ends in '_out'",
                "the '_out' suffix is reserved; name the out= variant with an overload, "
                "e.g. 'foo.out'",
            )
        )
    dunder = _DUNDER.fullmatch(text)
    inplace = False
    if dunder is not None:
        base = dunder.group(1)
        if base.startswith("i") and base[1:] in AUGMENTED_ASSIGNMENT_NAMES:
            inplace, base = True, base[1:]
        elif base.startswith("i"):
            problems.append(
                Diagnostic(
                    span,
                    f"dunder operator name '{text}' starts with 'i' but is not an "
                    "augmented assignment",
                    "in-place dunders are __iadd__, __isub__, ...: "
                    + ", ".join(sorted(AUGMENTED_ASSIGNMENT_NAMES)),
                )
            )
    else:
        base = text
        if base.endswith("_"):
            inplace, base = True, base[:-1]
    functional = base.endswith(FUNCTIONAL_SUFFIX)
    if functional:
        base = base[: -len(FUNCTIONAL_SUFFIX)]
        if dunder is not None or inplace:
            problems.append(
                Diagnostic(
                    span, f"'{text}' is a functional twin and cannot also be in-place or a dunder"
                )
            )
    return BaseOperatorName(base, inplace, dunder is not None, functional, namespace)
