"""Parse tree -> IR: one transformer method per grammar rule.

:class:`ToIR` turns each rule of ``grammar/schema.lark`` into the IR class of
the same name and checks what the grammar cannot: unknown types, malformed
operator names, misplaced out arguments.  Problems are collected and raised
together as :class:`SemanticProblems`, which :mod:`schemac.frontend.schema_parser`
turns into a :class:`~schemac.diagnostics.SchemaSemanticError`.  What the rules
share with the parser's shortcuts, which run without Lark, is in
:mod:`schemac.frontend.schema_rules`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import cast

from lark import Token, Transformer

from schemac.diagnostics import (
    Diagnostic,
    Span,
)
from schemac.frontend.schema_rules import (
    KwargMarker,
    Located,
    SemanticProblems,
    base_operator_name,
)
from schemac.frontend.schema_syntax import unknown_type_hint
from schemac.ir.names import (
    BaseOperatorName,
    OperatorName,
)
from schemac.ir.schema import Annotation, Argument, Arguments, FunctionSchema, Return
from schemac.ir.types import (
    BASE_TYPE_NAMES,
    CUSTOM_CLASS_PREFIX,
    BaseType,
    CustomClassType,
    ListType,
    OptionalType,
    Type,
)

#: What the ``type`` rule hands to ``argument`` and ``return_item``.
_TypeAndAnnotation = tuple[Type, "Annotation | None"]

_CUSTOM_CLASS_RE = re.compile(r"[A-Za-z0-9_.]+")


class ToIR(Transformer[Token, FunctionSchema]):
    def __init__(self, file: str, line: int, column: int, length: int = 0) -> None:
        super().__init__(visit_tokens=False)
        self._length = length
        self._file = file
        self._line = line
        self._column = column
        self.problems: list[Diagnostic] = []

    # -- helpers -------------------------------------------------------------
    def _span(self, first: Token, last: Token | None = None) -> Span:
        last = last or first
        end = last.end_column or (last.column or 1) + len(last)
        return Span(
            self._file, first.line or 1, first.column or 1, last.end_line or 1, end
        ).shifted(self._line, self._column)

    @staticmethod
    def _join(first: Span, last: Span) -> Span:
        return Span(first.file, first.line, first.column, last.end_line, last.end_column)

    def _problem(self, span: Span, message: str, hint: str | None = None) -> None:
        self.problems.append(Diagnostic(span, message, hint))

    # -- schema ----------------------------------------------------------------
    def argument_item(self, children: list[object]) -> object:
        return children[0]

    def schema(self, children: list[object]) -> FunctionSchema:
        name, argument_list, _arrow, returns = children
        assert isinstance(name, Located)
        arguments = argument_list if isinstance(argument_list, Arguments) else Arguments()
        assert isinstance(returns, tuple)
        if self.problems:
            raise SemanticProblems(self.problems)
        return FunctionSchema(
            name=name.value,  # type: ignore[arg-type]
            arguments=arguments,
            returns=returns,
            span=Span(
                self._file, self._line, self._column, self._line, self._column + self._length
            ),
            name_span=name.span,
        )

    # -- names -----------------------------------------------------------------
    def operator_name(self, children: list[Token | None]) -> Located:
        namespace, base, overload = children
        assert base is not None
        first = namespace or base
        last = overload or base
        span = self._span(first, last)
        base_name = self._base_operator_name(
            str(base), namespace[:-2] if namespace else None, self._span(base)
        )
        return Located(OperatorName(base_name, str(overload) if overload else ""), span)

    def _base_operator_name(self, text: str, namespace: str | None, span: Span) -> BaseOperatorName:
        return base_operator_name(text, namespace, span, self.problems)

    # -- arguments -----------------------------------------------------------
    def kwarg_marker(self, children: list[Token]) -> KwargMarker:
        return KwargMarker(self._span(children[0]))

    def argument(self, children: list[object]) -> Argument:
        typed, _space, name, _equals, default = children
        assert isinstance(typed, Located) and isinstance(name, Token)
        ty, annotation = cast(_TypeAndAnnotation, typed.value)
        last_span = default.span if isinstance(default, Located) else self._span(name)
        return Argument(
            name=str(name),
            type=ty,
            default=str(default.value) if isinstance(default, Located) else None,
            annotation=annotation,
            span=self._join(typed.span, last_span),
        )

    def _default(self, children: list[Token]) -> Located:
        return Located(str(children[0]), self._span(children[0]))

    number_default = string_default = list_default = name_default = _default

    def argument_list(self, children: list[object]) -> Arguments:
        positional: list[Argument] = []
        kwarg_only: list[Argument] = []
        out: list[Argument] = []
        section = positional
        for item in children:
            if isinstance(item, Token):  # ", "
                continue
            if isinstance(item, KwargMarker):
                if section is not positional:
                    self._problem(item.span, "the keyword-only marker '*' appears twice")
                section = kwarg_only
                continue
            assert isinstance(item, Argument)
            if item.is_write and section is kwarg_only:
                section = out
            elif not item.is_write and section is out:
                self._problem(
                    item.span,
                    f"argument '{item.name}' follows the out arguments",
                    "out arguments (mutable keyword-only) must come last",
                )
            section.append(item)
        if section is kwarg_only and not kwarg_only:
            marker = next(c for c in children if isinstance(c, KwargMarker))
            self._problem(
                marker.span,
                "the keyword-only marker '*' is not followed by any argument",
                "remove the '*', or put keyword-only arguments after it",
            )
        return Arguments(tuple(positional), tuple(kwarg_only), tuple(out))

    # -- types -----------------------------------------------------------------
    def type(self, children: list[object]) -> Located:
        name, annotation, *suffixes = children
        assert isinstance(name, Token)
        span = self._span(name)
        ty = self._named_type(str(name), span)
        for suffix in suffixes:
            assert isinstance(suffix, Located)
            size = suffix.value
            ty = OptionalType(ty) if size == "?" else ListType(ty, size)  # type: ignore[arg-type]
            span = self._join(span, suffix.span)
        if isinstance(annotation, Annotation):
            span = (
                self._join(span, annotation.span)
                if annotation.span.end_column > span.end_column
                else span
            )
        return Located((ty, annotation if isinstance(annotation, Annotation) else None), span)

    def _named_type(self, name: str, span: Span) -> Type:
        base = BASE_TYPE_NAMES.get(name)
        if base is not None:
            return BaseType(base)
        if name.startswith(CUSTOM_CLASS_PREFIX):
            class_name = name[len(CUSTOM_CLASS_PREFIX) :]
            if _CUSTOM_CLASS_RE.fullmatch(class_name):
                return CustomClassType(class_name)
        self._problem(
            span,
            f"unknown type '{name}'",
            unknown_type_hint(name),
        )
        return BaseType(BASE_TYPE_NAMES["Tensor"])

    def optional_suffix(self, children: list[Token]) -> Located:
        return Located("?", self._span(children[0]))

    def list_suffix(self, children: list[Token | None]) -> Located:
        size, close = children
        assert close is not None
        return Located(int(size) if size is not None else None, self._span(close))

    def annotation(self, children: list[object]) -> Annotation:
        alias_set, write, _arrow, after = children
        assert isinstance(alias_set, Located)
        before: tuple[str, ...] = alias_set.value  # type: ignore[assignment]
        after_set: tuple[str, ...] = after.value if isinstance(after, Located) else ()  # type: ignore[assignment]
        span = alias_set.span
        if len(before) > 2:
            # torchgen reads at most two members before '->' (its pattern keeps
            # only the last repeated group), so a larger set cannot round-trip.
            self._problem(
                span,
                f"alias set '{'|'.join(before)}' has more than two members",
                "PyTorch's code generator supports at most two aliases before '->'",
            )
        if write is not None and len(before) > 1:
            self._problem(span, "a mutable alias annotation names more than one alias set")
        if len(before) > 1 and len(after_set) > 1:
            self._problem(span, "alias sets before and after '->' cannot both have several members")
        return Annotation(before, write is not None, after_set, span=span)

    def alias_set(self, children: list[Token]) -> Located:
        return Located(tuple(str(c) for c in children), self._span(children[0], children[-1]))

    def alias_after(self, children: list[object]) -> Located:
        item = children[0]
        if isinstance(item, Token):
            return Located((str(item),), self._span(item))
        assert isinstance(item, Located)
        return item

    # -- returns -------------------------------------------------------------
    def return_item(self, children: list[object]) -> Return:
        typed, _space, name = children
        assert isinstance(typed, Located)
        ty, annotation = cast(_TypeAndAnnotation, typed.value)
        span = typed.span if name is None else self._join(typed.span, self._span(name))  # type: ignore[arg-type]
        if name is None and isinstance(annotation, Annotation) and annotation.alias_set_after:
            # A return's name is the text after its last space, so an unnamed
            # 'Tensor(a -> *)' would read as a type 'Tensor(a ->' named '*)'.
            self._problem(
                span,
                f"an unnamed return cannot carry the annotation '({annotation})'",
                "name the return, e.g. 'Tensor(a -> *) result'",
            )
        return Return(str(name) if name is not None else None, ty, annotation, span=span)

    def no_returns(self, children: list[object]) -> tuple[Return, ...]:
        return ()

    def single_return(self, children: list[object]) -> tuple[Return, ...]:
        return (children[0],)  # type: ignore[return-value]

    def tuple_returns(self, children: list[object]) -> tuple[Return, ...]:
        return tuple(c for c in children if isinstance(c, Return))

    def __default__(self, data: str, children: Sequence[object], meta: object) -> object:
        raise NotImplementedError(f"no IR for grammar rule '{data}'")
