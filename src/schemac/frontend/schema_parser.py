"""Schema text -> :class:`~schemac.ir.schema.FunctionSchema`.

The Lark grammar (``grammar/schema.lark``) decides what is well-formed text;
:class:`~schemac.frontend.schema_transformer.ToIR` turns each grammar rule into
the IR class of the same name, and :mod:`schemac.frontend.schema_syntax` turns
Lark's syntax errors into diagnostics.  This module drives them: whole-schema
parses, and the memoised piecewise parse the loader uses.

Positions: the text is parsed on its own, so token columns are relative to the
string; :func:`parse_schema` re-anchors every span at ``line:column`` of the
file the string came from.
"""

from __future__ import annotations

import re
from typing import cast

from lark import Lark
from lark.exceptions import (
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
    span_from_fields,
)
from schemac.frontend.grammar import schema_parser
from schemac.frontend.schema_syntax import syntax_diagnostic
from schemac.frontend.schema_transformer import (
    KwargMarker,
    SemanticProblems,
    ToIR,
    base_operator_name,
)
from schemac.ir.names import (
    OperatorName,
)
from schemac.ir.schema import Annotation, Argument, Arguments, FunctionSchema, Return
from schemac.ir.types import BASE_TYPE_NAMES, BaseType, ListType, OptionalType, Type


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
    only made when no string literal can hide a separator: outside string
    literals the grammar never puts ", " inside an argument nor ") -> " inside
    the argument list, so the pieces are exactly the subtrees a whole-schema
    parse would build.  Text with quotes qualifies when every quote belongs to
    a default literal (right after "=") without backslash, comma or
    parenthesis.  Any failure, and any other text with quotes, takes the
    whole-schema parse, which gives the diagnostics.  A property test checks
    that both paths agree.

    The memo belongs to this object, so its lifetime is the caller's choice
    (one per loaded file, typically); it never changes what a parse returns.
    """

    def __init__(self) -> None:
        self._arguments: dict[str, Argument | KwargMarker] = {}
        self._returns: dict[str, tuple[Return, ...]] = {}
        # Operator names are nearly all distinct, but made of ~1,500 base
        # names and ~200 overload names; each piece is parsed once.
        self._base_names: dict[str, OperatorName] = {}
        self._overloads: set[str] = set()
        # Whole names too: derivatives.yaml, autogen lists and structured
        # delegates repeat ~1,700 names of native_functions.yaml (names carry no span).
        self._names: dict[str, OperatorName] = {}
        self._base_name_shape = _base_name_shape()
        terminals = _terminal_patterns()
        self._overload_shape = re.compile(terminals["OVERLOAD"])
        self._argument_shape = _argument_shape(terminals)
        self._return_shape = _return_shape(terminals)

    def parse(
        self, text: str, *, file: str = "<schema>", line: int = 1, column: int = 1
    ) -> FunctionSchema:
        if not isinstance(text, str):
            raise SchemaSyntaxError(
                [Diagnostic(Span.point(file, line, column), "a schema must be a string")]
            )
        if ("'" not in text and '"' not in text) or _literals_hold_no_separator(text):
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
            except (UnexpectedInput, VisitError, SemanticProblems):
                pass  # the one-piece parse below gives the diagnostics
        located = _parse_fragment(text, "operator_name", file, line, column)
        return located.value  # type: ignore[attr-defined,no-any-return]

    def _operator_name(self, text: str) -> OperatorName:
        """``text`` parsed as its base name and overload, each memoised.

        The grammar puts no "." in a namespace or base name, so cutting at the
        first "." splits exactly where a whole-name parse would.
        """
        known = self._names.get(text)
        if known is not None:
            return known
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
            # The Token shortcut again: an overload that is one OVERLOAD token
            # needs no parse; anything else gets Lark's verdict.
            if self._overload_shape.fullmatch(overload) is None:
                _parser().parse("_." + overload, start="operator_name")
            self._overloads.add(overload)
        name = self._names[text] = OperatorName(base.name, overload)
        return name

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
            problems: list[Diagnostic] = []
            span = Span("", 1, 1, 1, len(text) + 1)
            name = base_operator_name(base, namespace[:-2] if namespace else None, span, problems)
            if not problems:
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
            name = self._operator_name(text[:open_paren])
            items: list[object] = []
            offset = open_paren + 1
            if close > offset:
                for piece in text[offset:close].split(", "):
                    items.append(self._argument_item(piece, file, line, column + offset))
                    offset += len(piece) + 2
            returns_at = close + len(") -> ")
            returns = self._return_list(text[returns_at:], file, line, column + returns_at)
            arguments = _sections(items) if items else Arguments()
            if arguments is None:
                return None
            return FunctionSchema(
                name=name,
                arguments=arguments,
                returns=returns,
                span=span_from_fields((file, line, column, line, column + len(text))),
                name_span=span_from_fields((file, line, column, line, column + open_paren)),
            )
        except (UnexpectedInput, VisitError, SemanticProblems, SchemacError):
            return None

    def _argument_item(self, piece: str, file: str, line: int, column: int) -> object:
        item = self._arguments.get(piece)
        if item is None:
            item = self._plain_argument(piece) or cast(
                "Argument | KwargMarker", _transform_piece(piece, "argument_item")
            )
            self._arguments[piece] = item
        return _anchored(item, file, line, column)

    def _plain_argument(self, piece: str) -> Argument | None:
        """``Type[(a[!])][?|[N]]* name[=default]`` without the Lark parse, or None.

        The Token shortcut (see Note [Token shortcut]) for argument pieces:
        most of them are a built-in type with at most a one-letter alias
        annotation and suffixes, a name and an unquoted default, each one
        terminal of the grammar, whose patterns are read from the loaded
        grammar.  Their first characters differ (a letter or "_", a digit, "-"
        or ".", "["), so the lexer can only have read the one terminal that
        matches the whole default.  Larger annotations, custom classes, quoted
        defaults and anything unknown take the Lark parse.
        """
        match = self._argument_shape.fullmatch(piece)
        if match is None:
            return None
        typed = _shortcut_type(match, 0)
        if typed is None:
            return None
        name, default = match.group("name", "default")
        # The argument rule spans from its type to its name or default: the whole piece.
        return Argument(name, typed[0], default, typed[1], Span("", 1, 1, 1, len(piece) + 1))

    def _plain_returns(self, text: str) -> tuple[Return, ...] | None:
        """A return list without the Lark parse, or None (the Token shortcut again).

        ``()``, one bare return item, or two or more items in parentheses cut
        at ", " (a return item holds no ", ": no defaults, and only the
        one-letter annotations :meth:`_plain_return` takes), each item a
        built-in type as in :meth:`_plain_argument` and an optional name.
        """
        if text == "()":
            return ()
        offset = 0
        items = [text]
        if text.startswith("("):
            if not text.endswith(")"):
                return None
            items = text[1:-1].split(", ")
            if len(items) < 2:
                return None  # "(Tensor)" is not in the grammar; let Lark say so
            offset = 1
        returns: list[Return] = []
        for item in items:
            ret = self._plain_return(item, offset)
            if ret is None:
                return None
            returns.append(ret)
            offset += len(item) + 2
        return tuple(returns)

    def _plain_return(self, item: str, offset: int) -> Return | None:
        match = self._return_shape.fullmatch(item)
        if match is None:
            return None
        typed = _shortcut_type(match, offset)
        if typed is None:
            return None
        name = match.group("name")
        end = offset + len(item) + 1
        if name is None and typed[1] is not None and not match.group("suffixes"):
            # An unnamed return spans its type, and an annotated type without
            # suffixes ends where its alias set does, before "!)".
            end = typed[1].span.end_column
        return Return(name, typed[0], typed[1], Span("", 1, offset + 1, 1, end))

    def _return_list(self, piece: str, file: str, line: int, column: int) -> tuple[Return, ...]:
        returns = self._returns.get(piece)
        if returns is None:
            returns = self._plain_returns(piece)
            if returns is None:
                returns = cast("tuple[Return, ...]", _transform_piece(piece, "returns"))
            self._returns[piece] = returns
        return tuple(cast(Return, _anchored(r, file, line, column)) for r in returns)


def _shortcut_type(match: re.Match[str], offset: int) -> tuple[Type, Annotation | None] | None:
    """The type and annotation of a piece a shortcut shape matched at ``offset``.

    None for a type name that is not built in (custom classes and unknown
    names take the Lark parse, which reports them).
    """
    type_name = match.group("type")
    base = BASE_TYPE_NAMES.get(type_name)
    if base is None:
        return None
    ty: Type = BaseType(base)
    for suffix in _SUFFIX.findall(match.group("suffixes")):
        if suffix == "?":
            ty = OptionalType(ty)
        else:
            ty = ListType(ty, int(suffix[1:-1]) if len(suffix) > 2 else None)
    alias = match.group("alias")
    if alias is None:
        return ty, None
    # The annotation's span is its alias set's: the letter after "Type(".
    column = offset + len(type_name) + 2
    span = Span("", 1, column, 1, column + 1)
    return ty, Annotation((alias,), match.group("write") is not None, (), span)


def _sections(items: list[object]) -> Arguments | None:
    """``ToIR.argument_list`` for well-formed items; None where it would report a problem.

    The same split (positional, then keyword-only after "*", then out= from
    the first written keyword-only argument) without building a transformer
    per schema; a misplaced "*" or out argument takes the whole-schema parse,
    whose transformer reports it.
    """
    positional: list[Argument] = []
    kwarg_only: list[Argument] = []
    out: list[Argument] = []
    section = positional
    for item in items:
        if type(item) is KwargMarker:
            if section is not positional:
                return None
            section = kwarg_only
            continue
        annotation = item.annotation  # type: ignore[attr-defined]
        if annotation is not None and annotation.is_write:
            if section is kwarg_only:
                section = out
        elif section is out:
            return None
        section.append(item)  # type: ignore[arg-type]
    if section is kwarg_only and not kwarg_only:
        return None
    return Arguments(tuple(positional), tuple(kwarg_only), tuple(out))


#: A default string literal that cannot contain a separator of Note [Piecewise parsing].
_PLAIN_LITERAL = re.compile(r"""(?<==)(?:"[^"\\,()]*"|'[^'\\,()]*')""")


def _literals_hold_no_separator(text: str) -> bool:
    """Whether every quote in ``text`` belongs to a :data:`_PLAIN_LITERAL`."""
    rest = _PLAIN_LITERAL.sub("", text)
    return "'" not in rest and '"' not in rest


def _parser() -> Lark:
    return schema_parser()


def _terminal_patterns() -> dict[str, str]:
    return {t.name: t.pattern.to_regexp() for t in _parser().terminals}


def _argument_shape(t: dict[str, str]) -> re.Pattern[str]:
    """``argument`` with at most a one-letter annotation and no quoted default.

    See ``_plain_argument``.
    """
    default = f"(?:{t['NUMBER']})|(?:{t['LIST']})|(?:{t['ARG_NAME']})"
    return re.compile(rf"{_type_shape(t)} (?P<name>{t['ARG_NAME']})(?:=(?P<default>{default}))?")


def _return_shape(t: dict[str, str]) -> re.Pattern[str]:
    """``return_item`` with at most a one-letter annotation; see ``_plain_return``."""
    return re.compile(rf"{_type_shape(t)}(?: (?P<name>{t['ARG_NAME']}))?")


def _type_shape(t: dict[str, str]) -> str:
    suffix = rf"\?|\[(?:{t['SIZE']})?\]"
    annotation = rf"(?:\((?P<alias>{t['ALIAS']})(?P<write>!)?\))?"
    return rf"(?P<type>{t['TYPE_NAME']}){annotation}(?P<suffixes>(?:{suffix})*)"


#: One type suffix in the text ``_argument_shape`` accepted.
_SUFFIX = re.compile(r"\?|\[[0-9]*\]")


def _base_name_shape() -> re.Pattern[str]:
    """``[NAMESPACE] BASE_NAME`` from the grammar's terminals; see Note [Token shortcut]."""
    patterns = _terminal_patterns()
    return re.compile(f"({patterns['NAMESPACE']})?({patterns['BASE_NAME']})")


def _transform_piece(piece: str, start: str) -> object:
    """Parse ``piece`` from ``start`` with spans relative to the piece itself."""
    transformer = ToIR("", 1, 1)
    result = transformer.transform(_parser().parse(piece, start=start))
    if transformer.problems:
        raise SemanticProblems(transformer.problems)
    return result


def _anchored(item: object, file: str, line: int, column: int) -> object:
    """A memoised piece re-anchored at ``file:line:column``.

    Runs once per argument and return of every schema (~16,000 times for
    torch's files), so the span arithmetic is written out here rather than
    going through a helper per span.
    """
    dl, dc = line - 1, column - 1
    span = item.span  # type: ignore[attr-defined]
    moved = span_from_fields(
        (file, span.line + dl, span.column + dc, span.end_line + dl, span.end_column + dc)
    )
    kind = type(item)
    if kind is KwargMarker:
        return KwargMarker(moved)
    annotation = item.annotation  # type: ignore[attr-defined]
    if annotation is not None:
        at = annotation.span
        annotation = Annotation(
            annotation.alias_set,
            annotation.is_write,
            annotation.alias_set_after,
            span_from_fields(
                (file, at.line + dl, at.column + dc, at.end_line + dl, at.end_column + dc)
            ),
        )
    if kind is Argument:
        return Argument(item.name, item.type, item.default, annotation, moved)  # type: ignore[attr-defined]
    assert kind is Return
    return Return(item.name, item.type, annotation, moved)  # type: ignore[attr-defined]


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
        diagnostic = syntax_diagnostic(text, error, file, line, column)
        what = "operator name" if start == "operator_name" else "argument"
        message = diagnostic.message.replace("invalid schema", f"invalid {what}", 1)
        if isinstance(error, UnexpectedToken) and error.token.type == "$END":
            message = f"invalid {what}: unexpected end of text"
            diagnostic = Diagnostic(
                Span.point(file, 1, len(text) + 1).shifted(line, column), message
            )
        hint = _FRAGMENT_HINTS.get(start)
        raise SchemaSyntaxError([Diagnostic(diagnostic.span, message, hint)]) from None
    transformer = ToIR(file, line, column, len(text))
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
        raise SchemaSyntaxError([syntax_diagnostic(text, error, file, line, column)]) from None
    transformer = ToIR(file, line, column, len(text))
    try:
        return transformer.transform(tree)
    except VisitError as error:
        original = error.orig_exc
        if isinstance(original, SemanticProblems):
            raise SchemaSemanticError(original.diagnostics) from None
        if isinstance(original, SchemacError):
            raise type(original)(original.diagnostics) from None
        raise
