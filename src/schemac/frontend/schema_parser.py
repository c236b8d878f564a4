"""Schema text -> :class:`~schemac.ir.schema.FunctionSchema`.

The Lark grammar (``grammar/schema.lark``) decides what is well-formed text; the
:class:`_ToIR` transformer below turns each grammar rule into the IR class of
the same name, and checks the rules that are about meaning rather than spelling
(unknown types, malformed operator names, misplaced out arguments).  Lark's
exceptions are translated into schemac diagnostics here and nowhere else.

Positions: the text is parsed on its own, so token columns are relative to the
string; :func:`parse_schema` re-anchors every span at ``line:column`` of the
file the string came from.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import cast

from lark import Lark, Token, Transformer
from lark.exceptions import (
    UnexpectedCharacters,
    UnexpectedEOF,
    UnexpectedInput,
    UnexpectedToken,
    VisitError,
)

from schemac.diagnostics import (
    Diagnostic,
    SchemacError,
    SchemaSemanticError,
    SchemaSyntaxError,
    Span,
    did_you_mean,
)
from schemac.frontend.grammar import schema_parser
from schemac.ir.names import (
    AUGMENTED_ASSIGNMENT_NAMES,
    FUNCTIONAL_SUFFIX,
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


class _Located:
    """A value with the span it was parsed from, passed between rules."""

    __slots__ = ("span", "value")

    def __init__(self, value: object, span: Span) -> None:
        self.value = value
        self.span = span


class _KwargMarker:
    __slots__ = ("span",)

    def __init__(self, span: Span) -> None:
        self.span = span


class _Problems(Exception):
    """Carries semantic diagnostics out of the transformer."""

    def __init__(self, diagnostics: list[Diagnostic]) -> None:
        super().__init__(diagnostics)
        self.diagnostics = diagnostics


class _ToIR(Transformer[Token, FunctionSchema]):
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
        assert isinstance(name, _Located)
        arguments = argument_list if isinstance(argument_list, Arguments) else Arguments()
        assert isinstance(returns, tuple)
        if self.problems:
            raise _Problems(self.problems)
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
    def operator_name(self, children: list[Token | None]) -> _Located:
        namespace, base, overload = children
        assert base is not None
        first = namespace or base
        last = overload or base
        span = self._span(first, last)
        base_name = self._base_operator_name(
            str(base), namespace[:-2] if namespace else None, self._span(base)
        )
        return _Located(OperatorName(base_name, str(overload) if overload else ""), span)

    def _base_operator_name(self, text: str, namespace: str | None, span: Span) -> BaseOperatorName:
        if text.endswith("_out"):
            self._problem(
                span,
                f"operator name '{text}' ends in '_out'",
                "the '_out' suffix is reserved; name the out= variant with an overload, "
                "e.g. 'foo.out'",
            )
        dunder = re.fullmatch(r"__([^_]+)__", text)
        inplace = False
        if dunder is not None:
            base = dunder.group(1)
            if base.startswith("i") and base[1:] in AUGMENTED_ASSIGNMENT_NAMES:
                inplace, base = True, base[1:]
            elif base.startswith("i"):
                self._problem(
                    span,
                    f"dunder operator name '{text}' starts with 'i' but is not an "
                    "augmented assignment",
                    "in-place dunders are __iadd__, __isub__, ...: "
                    + ", ".join(sorted(AUGMENTED_ASSIGNMENT_NAMES)),
                )
        else:
            base = text
            if base.endswith("_"):
                inplace, base = True, base[:-1]
        functional = base.endswith(FUNCTIONAL_SUFFIX)
        if functional:
            base = base[: -len(FUNCTIONAL_SUFFIX)]
            if dunder is not None or inplace:
                self._problem(
                    span,
                    f"'{text}' is a functional twin and cannot also be in-place or a dunder",
                )
        return BaseOperatorName(base, inplace, dunder is not None, functional, namespace)

    # -- arguments -----------------------------------------------------------
    def kwarg_marker(self, children: list[Token]) -> _KwargMarker:
        return _KwargMarker(self._span(children[0]))

    def argument(self, children: list[object]) -> Argument:
        typed, _space, name, _equals, default = children
        assert isinstance(typed, _Located) and isinstance(name, Token)
        ty, annotation = cast(_TypeAndAnnotation, typed.value)
        last_span = default.span if isinstance(default, _Located) else self._span(name)
        return Argument(
            name=str(name),
            type=ty,
            default=str(default.value) if isinstance(default, _Located) else None,
            annotation=annotation,
            span=self._join(typed.span, last_span),
        )

    def _default(self, children: list[Token]) -> _Located:
        return _Located(str(children[0]), self._span(children[0]))

    number_default = string_default = list_default = name_default = _default

    def argument_list(self, children: list[object]) -> Arguments:
        positional: list[Argument] = []
        kwarg_only: list[Argument] = []
        out: list[Argument] = []
        section = positional
        for item in children:
            if isinstance(item, Token):  # ", "
                continue
            if isinstance(item, _KwargMarker):
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
            marker = next(c for c in children if isinstance(c, _KwargMarker))
            self._problem(
                marker.span,
                "the keyword-only marker '*' is not followed by any argument",
                "remove the '*', or put keyword-only arguments after it",
            )
        return Arguments(tuple(positional), tuple(kwarg_only), tuple(out))

    # -- types -----------------------------------------------------------------
    def type(self, children: list[object]) -> _Located:
        name, annotation, *suffixes = children
        assert isinstance(name, Token)
        span = self._span(name)
        ty = self._named_type(str(name), span)
        for suffix in suffixes:
            assert isinstance(suffix, _Located)
            size = suffix.value
            ty = OptionalType(ty) if size == "?" else ListType(ty, size)  # type: ignore[arg-type]
            span = self._join(span, suffix.span)
        if isinstance(annotation, Annotation):
            span = (
                self._join(span, annotation.span)
                if annotation.span.end_column > span.end_column
                else span
            )
        return _Located((ty, annotation if isinstance(annotation, Annotation) else None), span)

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
            _type_hint(name),
        )
        return BaseType(BASE_TYPE_NAMES["Tensor"])

    def optional_suffix(self, children: list[Token]) -> _Located:
        return _Located("?", self._span(children[0]))

    def list_suffix(self, children: list[Token | None]) -> _Located:
        size, close = children
        assert close is not None
        return _Located(int(size) if size is not None else None, self._span(close))

    def annotation(self, children: list[object]) -> Annotation:
        alias_set, write, _arrow, after = children
        assert isinstance(alias_set, _Located)
        before: tuple[str, ...] = alias_set.value  # type: ignore[assignment]
        after_set: tuple[str, ...] = after.value if isinstance(after, _Located) else ()  # type: ignore[assignment]
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

    def alias_set(self, children: list[Token]) -> _Located:
        return _Located(tuple(str(c) for c in children), self._span(children[0], children[-1]))

    def alias_after(self, children: list[object]) -> _Located:
        item = children[0]
        if isinstance(item, Token):
            return _Located((str(item),), self._span(item))
        assert isinstance(item, _Located)
        return item

    # -- returns -------------------------------------------------------------
    def return_item(self, children: list[object]) -> Return:
        typed, _space, name = children
        assert isinstance(typed, _Located)
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


class SchemaParser:
    """Parses schema strings, reusing the pieces it has already parsed.

    Note [Piecewise parsing]
    ~~~~~~~~~~~~~~~~~~~~~~~~
    Lark's LALR parser costs a few microseconds per token, and a real
    native_functions.yaml has about 75,000 schema tokens, but only about 1,100
    distinct argument texts and 100 distinct return lists.  So a schema is cut
    at its canonical separators (the first "(", the ") -> " that closes the
    argument list, and ", " between arguments) and each piece is parsed from its
    own start symbol in the same grammar, once per distinct text.  The cut is
    only made when the text has no quote characters: outside string literals
    the grammar never puts ", " inside an argument nor ") -> " inside the
    argument list, so the pieces are exactly the subtrees a whole-schema parse
    would build.  Any failure, and any text with quotes, takes the whole-schema
    parse, which gives the diagnostics.  A property test checks that both paths
    agree.

    The memo belongs to this object, so its lifetime is the caller's choice
    (one per loaded file, typically); it never changes what a parse returns.
    """

    def __init__(self) -> None:
        self._arguments: dict[str, Argument | _KwargMarker] = {}
        self._returns: dict[str, tuple[Return, ...]] = {}
        # Operator names are nearly all distinct, but made of ~1,500 base
        # names and ~200 overload names; each piece is parsed once.
        self._base_names: dict[str, OperatorName] = {}
        self._overloads: set[str] = set()
        self._base_name_shape = _base_name_shape()

    def parse(
        self, text: str, *, file: str = "<schema>", line: int = 1, column: int = 1
    ) -> FunctionSchema:
        if not isinstance(text, str):
            raise SchemaSyntaxError(
                [Diagnostic(Span.point(file, line, column), "a schema must be a string")]
            )
        if "'" not in text and '"' not in text:
            fast = self._parse_in_pieces(text, file, line, column)
            if fast is not None:
                return fast
        return _parse_whole(text, file, line, column)

    def operator_name(
        self, text: str, *, file: str = "<schema>", line: int = 1, column: int = 1
    ) -> OperatorName:
        """Parse ``ns::name.overload`` alone (autogen lists, structured delegates)."""
        if isinstance(text, str):
            try:
                return self._operator_name(text)
            except (UnexpectedInput, VisitError, _Problems):
                pass  # the one-piece parse below gives the diagnostics
        located = _parse_fragment(text, "operator_name", file, line, column)
        return located.value  # type: ignore[attr-defined,no-any-return]

    def _operator_name(self, text: str) -> OperatorName:
        """``text`` parsed as its base name and overload, each memoised.

        The grammar puts no "." in a namespace or base name, so cutting at the
        first "." splits exactly where a whole-name parse would.
        """
        dot = text.find(".")
        base_text = text if dot < 0 else text[:dot]
        base = self._base_names.get(base_text)
        if base is None:
            base = self._base_name(base_text)
            self._base_names[base_text] = base
        if dot < 0:
            return base
        overload = text[dot + 1 :]
        if overload not in self._overloads:
            _parser().parse("_." + overload, start="operator_name")
            self._overloads.add(overload)
        return OperatorName(base.name, overload)

    def argument(
        self, text: str, *, file: str = "<schema>", line: int = 1, column: int = 1
    ) -> Argument:
        """Parse one ``Type name[=default]`` (the precomputed arguments of a kernel)."""
        item = _parse_fragment(text, "argument_item", file, line, column)
        if not isinstance(item, Argument):
            raise SchemaSyntaxError(
                [Diagnostic(Span.point(file, line, column), "expected an argument, got '*'")]
            )
        return item

    def _base_name(self, text: str) -> OperatorName:
        """``ns::name`` without an overload.

        Note [Token shortcut]
        ~~~~~~~~~~~~~~~~~~~~~
        A base name is one or two tokens, so a Lark parse of it is mostly fixed
        overhead, paid ~1,500 times for a real file.  When the text fully
        matches the grammar's own NAMESPACE and BASE_NAME terminal patterns
        (read from the loaded grammar, not restated here) it is exactly what
        the operator_name rule accepts, and the transformer's rule for base
        names is applied directly.  Anything else, and any name that rule
        objects to, goes through the Lark parse for its diagnostics.
        """
        match = self._base_name_shape.fullmatch(text)
        if match is not None:
            namespace, base = match.groups()
            transformer = _ToIR("", 1, 1)
            span = Span("", 1, 1, 1, len(text) + 1)
            name = transformer._base_operator_name(
                base, namespace[:-2] if namespace else None, span
            )
            if not transformer.problems:
                return OperatorName(name, "")
        located = _transform_piece(text, "operator_name")
        return located.value  # type: ignore[attr-defined,no-any-return]

    def _parse_in_pieces(
        self, text: str, file: str, line: int, column: int
    ) -> FunctionSchema | None:
        open_paren = text.find("(")
        close = text.find(") -> ", open_paren)
        if open_paren <= 0 or close < 0:
            return None
        try:
            transformer = _ToIR(file, line, column)
            name = self._operator_name(text[:open_paren])
            items: list[object] = []
            offset = open_paren + 1
            if close > offset:
                for piece in text[offset:close].split(", "):
                    items.append(self._argument_item(piece, file, line, column + offset))
                    offset += len(piece) + 2
            returns_at = close + len(") -> ")
            returns = self._return_list(text[returns_at:], file, line, column + returns_at)
            arguments = transformer.argument_list(items) if items else Arguments()
            if transformer.problems:
                return None
            return FunctionSchema(
                name=name,
                arguments=arguments,
                returns=returns,
                span=Span(file, line, column, line, column + len(text)),
                name_span=Span(file, line, column, line, column + open_paren),
            )
        except (UnexpectedInput, VisitError, _Problems, SchemacError):
            return None

    def _argument_item(self, piece: str, file: str, line: int, column: int) -> object:
        item = self._arguments.get(piece)
        if item is None:
            item = cast("Argument | _KwargMarker", _transform_piece(piece, "argument_item"))
            self._arguments[piece] = item
        return _anchored(item, file, line, column)

    def _return_list(self, piece: str, file: str, line: int, column: int) -> tuple[Return, ...]:
        returns = self._returns.get(piece)
        if returns is None:
            returns = cast("tuple[Return, ...]", _transform_piece(piece, "returns"))
            self._returns[piece] = returns
        return tuple(cast(Return, _anchored(r, file, line, column)) for r in returns)


def _parser() -> Lark:
    return schema_parser()


def _base_name_shape() -> re.Pattern[str]:
    """``[NAMESPACE] BASE_NAME`` from the grammar's terminals; see Note [Token shortcut]."""
    patterns = {t.name: t.pattern.to_regexp() for t in _parser().terminals}
    return re.compile(f"({patterns['NAMESPACE']})?({patterns['BASE_NAME']})")


def _transform_piece(piece: str, start: str) -> object:
    """Parse ``piece`` from ``start`` with spans relative to the piece itself."""
    transformer = _ToIR("", 1, 1)
    result = transformer.transform(_parser().parse(piece, start=start))
    if transformer.problems:
        raise _Problems(transformer.problems)
    return result


def _moved(span: Span, file: str, line: int, column: int) -> Span:
    return Span(
        file,
        span.line + line - 1,
        span.column + column - 1,
        span.end_line + line - 1,
        span.end_column + column - 1,
    )


def _anchored(item: object, file: str, line: int, column: int) -> object:
    """A memoised piece re-anchored at ``file:line:column``."""
    if isinstance(item, _KwargMarker):
        return _KwargMarker(_moved(item.span, file, line, column))
    annotation = item.annotation  # type: ignore[attr-defined]
    if annotation is not None:
        annotation = Annotation(
            annotation.alias_set,
            annotation.is_write,
            annotation.alias_set_after,
            _moved(annotation.span, file, line, column),
        )
    span = _moved(item.span, file, line, column)  # type: ignore[attr-defined]
    if isinstance(item, Argument):
        return Argument(item.name, item.type, item.default, annotation, span)
    assert isinstance(item, Return)
    return Return(item.name, item.type, annotation, span)


def parse_schema(
    text: str, *, file: str = "<schema>", line: int = 1, column: int = 1
) -> FunctionSchema:
    """Parse one schema string.

    ``file``, ``line`` and ``column`` say where the text stands, so that
    diagnostics point into the file it came from.  Raises a subclass of
    :class:`~schemac.diagnostics.SchemacError` for any invalid text, and no
    other exception for any string.
    """
    return SchemaParser().parse(text, file=file, line=line, column=column)


def _parse_fragment(text: str, start: str, file: str, line: int, column: int) -> object:
    """Parse a piece of schema text from ``start``; errors become diagnostics."""
    if not isinstance(text, str):
        raise SchemaSyntaxError([Diagnostic(Span.point(file, line, column), "expected a string")])
    try:
        tree = _parser().parse(text, start=start)
    except UnexpectedInput as error:
        diagnostic = _syntax_diagnostic(text, error, file, line, column)
        what = "operator name" if start == "operator_name" else "argument"
        message = diagnostic.message.replace("invalid schema", f"invalid {what}", 1)
        if isinstance(error, UnexpectedToken) and error.token.type == "$END":
            message = f"invalid {what}: unexpected end of text"
            diagnostic = Diagnostic(
                Span.point(file, 1, len(text) + 1).shifted(line, column), message
            )
        hint = _FRAGMENT_HINTS.get(start)
        raise SchemaSyntaxError([Diagnostic(diagnostic.span, message, hint)]) from None
    transformer = _ToIR(file, line, column, len(text))
    try:
        result = transformer.transform(tree)
    except VisitError as error:
        original = error.orig_exc
        if isinstance(original, SchemacError):
            raise type(original)(original.diagnostics) from None
        raise
    if transformer.problems:
        raise SchemaSemanticError(transformer.problems)
    return result


_FRAGMENT_HINTS = {
    "operator_name": "an operator name looks like 'name' or 'name.overload'",
    "argument_item": "an argument looks like 'Type name' or 'Type name=default'",
}


def _parse_whole(text: str, file: str, line: int, column: int) -> FunctionSchema:
    try:
        tree = _parser().parse(text, start="schema")
    except UnexpectedInput as error:
        raise SchemaSyntaxError([_syntax_diagnostic(text, error, file, line, column)]) from None
    transformer = _ToIR(file, line, column, len(text))
    try:
        return transformer.transform(tree)
    except VisitError as error:
        original = error.orig_exc
        if isinstance(original, _Problems):
            raise SchemaSemanticError(original.diagnostics) from None
        if isinstance(original, SchemacError):
            raise type(original)(original.diagnostics) from None
        raise


def _syntax_diagnostic(
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


def _type_hint(name: str) -> str:
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
