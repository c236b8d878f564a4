"""Schema text -> :class:`~schemac.ir.schema.FunctionSchema`.

The Lark grammar (``grammar/schema.lark``) decides what is well-formed text;
:class:`~schemac.frontend.schema_transformer.ToIR` turns each grammar rule into
the IR class of the same name, and :mod:`schemac.frontend.schema_syntax` turns
Lark's syntax errors into diagnostics.  This module drives them: whole-schema
parses, and the memoised piecewise parse the loader uses.

Positions: the text is parsed on its own, so token columns are relative to the
string; :func:`parse_schema` re-anchors every span at ``line:column`` of the
file the string came from.

Note [Lark on demand]
~~~~~~~~~~~~~~~~~~~~~
Importing Lark and loading the grammar's tables costs a small compile about
a tenth of its instructions (Lark's modules, ``interegular`` where it is
installed, the tables).  The shortcuts of Note [Token shortcut] need only
the grammar's terminal patterns, which :func:`schemac.frontend.grammar.terminal_patterns`
keeps in schemac's cache, so Lark is imported the first time a piece does
not take a shortcut (:func:`_parser`), or a diagnostic is needed.  The
keyword-only marker and quoted defaults take shortcuts too: every schema of
examples/toyops and examples/toyext does, and two pieces of torch's
native_functions.yaml do not (``Tensor(a -> *) self`` and a test operator's
escaped string defaults).  Until Lark is loaded no Lark exception can be
raised, so the handlers of failed shortcuts catch :data:`_PIECE_ERRORS`,
which gains Lark's exceptions when it loads.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, NamedTuple, cast

from schemac.diagnostics import (
    Diagnostic,
    SchemacError,
    SchemaSemanticError,
    SchemaSyntaxError,
    Span,
    span_from_fields,
)
from schemac.frontend.grammar import schema_parser, terminal_patterns
from schemac.frontend.schema_rules import (
    KwargMarker,
    SemanticProblems,
    base_operator_name,
)
from schemac.ir.names import (
    OperatorName,
)
from schemac.ir.schema import (
    Annotation,
    Argument,
    Arguments,
    FunctionSchema,
    Return,
    remember_text,
    returns_text,
)
from schemac.ir.types import BASE_TYPE_NAMES, TENSOR, BaseType, ListType, OptionalType, Type

if TYPE_CHECKING:
    from lark import Lark

#: What a failed name parse may raise, and a failed piece parse: Lark's
#: exceptions join them when Lark is first loaded (:func:`_parser`); none of
#: them can be raised before that.
_NAME_ERRORS: tuple[type[Exception], ...] = (SemanticProblems,)
_PIECE_ERRORS: tuple[type[Exception], ...] = (SemanticProblems, SchemacError)
_lark_loaded = False


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
        self._arguments: dict[str, _ArgumentPiece] = {}
        self._returns: dict[str, _ReturnsPiece] = {}
        # Operator names are nearly all distinct, but made of ~1,500 base
        # names and ~200 overload names; each piece is parsed once.
        self._base_names: dict[str, OperatorName] = {}
        self._overloads: set[str] = set()
        # Whole names too: derivatives.yaml, autogen lists and structured
        # delegates repeat ~1,700 names of native_functions.yaml (names carry no span).
        self._names: dict[str, OperatorName] = {}
        # The names among them that print as written (Note [Schemas that print
        # as written]), decided once per base name rather than by printing each.
        self._names_as_written: set[str] = set()
        self._bases_as_written: set[str] = set()
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
            except _NAME_ERRORS:
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
            if str(base.name) == base_text:
                self._bases_as_written.add(base_text)
        if dot < 0:
            name = base
        else:
            overload = text[dot + 1 :]
            if overload not in self._overloads:
                # The Token shortcut again: an overload that is one OVERLOAD token
                # needs no parse; anything else gets Lark's verdict.
                if self._overload_shape.fullmatch(overload) is None:
                    _parser().parse("_." + overload, start="operator_name")
                self._overloads.add(overload)
            name = OperatorName(base.name, overload)
        self._names[text] = name
        # An accepted overload is one OVERLOAD token, never empty, so the name
        # prints as "base.overload": as written when its base does.
        if base_text in self._bases_as_written:
            self._names_as_written.add(text)
        return name

    def argument(
        self, text: str, *, file: str = "<schema>", line: int = 1, column: int = 1
    ) -> Argument:
        """Parse one ``Type name[=default]`` (the precomputed arguments of a kernel).

        From the memo of argument pieces when the text is one (see Note
        [Re-anchoring pieces]); anything else, and "*", gets the fragment
        parse and its diagnostics.
        """
        known = self._known_argument(text) if isinstance(text, str) else None
        if known is not None and known.role is not _MARKER:
            shift = column - 1
            annotation = known.annotation
            if annotation is not None:
                start = known.annotation_start + shift
                annotation = _moved_annotation(annotation, file, line, start)
            span = span_from_fields((file, line, known.start + shift, line, known.end + shift))
            return Argument(known.name, known.type, known.default, annotation, span)
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
        """The schema from its memoised pieces, or None to take the whole-schema parse."""
        open_paren = text.find("(")
        close = text.find(") -> ", open_paren)
        if open_paren <= 0 or close < 0:
            return None
        try:
            name_text = text[:open_paren]
            name = self._operator_name(name_text)
            arguments = self._arguments_at(text, open_paren, close, file, line, column)
            if arguments is None:
                return None
            returns_at = close + len(") -> ")
            returns = self._returns_at(text[returns_at:], file, line, column + returns_at - 1)
            if returns is None:
                return None
            schema = FunctionSchema(
                name=name,
                arguments=arguments[0],
                returns=returns[0],
                span=span_from_fields((file, line, column, line, column + len(text))),
                name_span=span_from_fields((file, line, column, line, column + open_paren)),
            )
        except _PIECE_ERRORS:
            return None
        # See Note [Schemas that print as written] in schemac.ir.schema.
        if arguments[1] and returns[1] and name_text in self._names_as_written:
            remember_text(schema, text)
        return schema

    def _arguments_at(
        self, text: str, open_paren: int, close: int, file: str, line: int, column: int
    ) -> tuple[Arguments, bool] | None:
        """The arguments between ``open_paren`` and ``close``, and whether they print as written.

        Each piece's IR is rebuilt at its place in the file (see Note
        [Re-anchoring pieces]) and sorted into its section as
        ``ToIR.argument_list`` does; a misplaced "*" or out argument gives
        None, so that the whole-schema parse reports it.
        """
        if close == open_paren + 1:
            return _NO_ARGUMENTS, True
        positional: list[Argument] = []
        kwarg_only: list[Argument] = []
        out: list[Argument] = []
        section = positional
        as_written = True
        memo = self._arguments
        # Column of a piece's first character, minus 1 (pieces start at column 1).
        shift = column + open_paren
        for piece in text[open_paren + 1 : close].split(", "):
            known = memo.get(piece)
            if known is None:
                known = self._argument_piece(piece)
                if known is None:
                    return None
                memo[piece] = known
            role, piece_as_written, name, ty, default, annotation, start, end, a_start = known
            if not piece_as_written:
                as_written = False
            if role is _MARKER:
                if section is not positional:
                    return None
                section = kwarg_only
            else:
                if role is _WRITTEN:
                    if section is kwarg_only:
                        section = out
                elif section is out:
                    return None
                if annotation is not None:
                    annotation = _moved_annotation(annotation, file, line, a_start + shift)
                span = span_from_fields((file, line, start + shift, line, end + shift))
                section.append(Argument(name, ty, default, annotation, span))
            shift += len(piece) + 2
        if section is kwarg_only and not kwarg_only:
            return None
        return Arguments(tuple(positional), tuple(kwarg_only), tuple(out)), as_written

    def _returns_at(
        self, piece: str, file: str, line: int, shift: int
    ) -> tuple[tuple[Return, ...], bool] | None:
        """The return list ``piece`` at column ``shift + 1``, and whether it prints as written."""
        known = self._returns.get(piece)
        if known is None:
            known = self._returns_piece(piece)
            if known is None:
                return None
            self._returns[piece] = known
        as_written, items = known
        if not items:
            return (), as_written
        returns: list[Return] = []
        for name, ty, annotation, start, end, a_start in items:
            if annotation is not None:
                annotation = _moved_annotation(annotation, file, line, a_start + shift)
            span = span_from_fields((file, line, start + shift, line, end + shift))
            returns.append(Return(name, ty, annotation, span))
        return tuple(returns), as_written

    def _known_argument(self, piece: str) -> _ArgumentPiece | None:
        """The memo entry of one argument text, made if needed; None if it is not one."""
        known = self._arguments.get(piece)
        if known is None:
            try:
                known = self._argument_piece(piece)
            except _PIECE_ERRORS:
                return None
            if known is not None:
                self._arguments[piece] = known
        return known

    def _argument_piece(self, piece: str) -> _ArgumentPiece | None:
        """What :meth:`_parse_in_pieces` keeps of one argument text; None if it spans lines."""
        if piece == "*":
            # The keyword-only marker is the STAR token alone (the Token shortcut).
            return _KWARG_MARKER
        item = self._plain_argument(piece) or cast(
            "Argument | KwargMarker", _transform_piece(piece, "argument_item")
        )
        if not _on_first_line(item.span):
            return None
        if type(item) is KwargMarker:
            return _ArgumentPiece(_MARKER, piece == "*", "", TENSOR, None, None, 0, 0, 0)
        assert isinstance(item, Argument)
        annotation = item.annotation
        a_start = 0
        if annotation is not None:
            if not _on_first_line(annotation.span):
                return None
            a_start = annotation.span.column
        span = item.span
        return _ArgumentPiece(
            _WRITTEN if item.is_write else _READ,
            str(item) == piece,
            item.name,
            item.type,
            item.default,
            annotation,
            span.column,
            span.end_column,
            a_start,
        )

    def _returns_piece(self, piece: str) -> _ReturnsPiece | None:
        """What :meth:`_parse_in_pieces` keeps of one return list; None if it spans lines."""
        returns = self._plain_returns(piece)
        if returns is None:
            returns = cast("tuple[Return, ...]", _transform_piece(piece, "returns"))
        items: list[_ReturnPiece] = []
        for ret in returns:
            annotation = ret.annotation
            if not _on_first_line(ret.span) or (
                annotation is not None and not _on_first_line(annotation.span)
            ):
                return None
            a_start = 0 if annotation is None else annotation.span.column
            items.append(
                (ret.name, ret.type, annotation, ret.span.column, ret.span.end_column, a_start)
            )
        return returns_text(returns) == piece, tuple(items)

    def _plain_argument(self, piece: str) -> Argument | None:
        """``Type[(a[!])][?|[N]]* name[=default]`` without the Lark parse, or None.

        The Token shortcut (see Note [Token shortcut]) for argument pieces:
        most of them are a built-in type with at most a one-letter alias
        annotation and suffixes, a name and a default, each one terminal of
        the grammar, whose patterns are read from the loaded grammar.  The
        default's terminals begin differently (a letter or "_", a digit, "-"
        or ".", "[", a quote), so the lexer can only have read the one
        terminal that matches the whole default.  (A STRING's text between
        its quotes splits into the pattern's items one way only, a backslash
        taking the character after it, so the lexer's match of a quoted
        default ends at the quote where the whole piece does.)  Larger
        annotations, custom classes and anything unknown take the Lark parse.
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
    becomes = match.groupdict().get("after")
    after = () if becomes is None else tuple(becomes.split("|"))
    return ty, Annotation((alias,), match.group("write") is not None, after, span)


#: The role of an argument piece in sorting arguments into sections.
_MARKER, _READ, _WRITTEN = "*", "read", "written"


class _ArgumentPiece(NamedTuple):
    """One memoised argument text, ready to be rebuilt at any place in a file.

    Note [Re-anchoring pieces]
    ~~~~~~~~~~~~~~~~~~~~~~~~~~
    A memoised piece was parsed on its own, so its spans say line 1 and count
    columns from the piece's first character.  Every occurrence needs its own
    IR node with spans in the file (~16,000 per load), so the memo keeps the
    node's fields and its columns unpacked, and the loop of
    :meth:`SchemaParser._parse_in_pieces` builds the node directly: a piece
    lies on one line (the grammar has no line breaks; a piece that somehow
    spans lines is not memoised and its schema takes the whole-schema parse),
    so a span is ``(file, line, start + shift, line, end + shift)``, and both
    line fields are the same int object, one per schema rather than two per
    span.
    """

    role: str
    #: Whether the piece prints as written (Note [Schemas that print as written]).
    as_written: bool
    name: str
    type: Type
    default: str | None
    annotation: Annotation | None
    start: int
    end: int
    #: Start column of the annotation's span (0 when there is none).
    annotation_start: int


#: A memoised return item: name, type, annotation, span start and end, annotation start.
_ReturnPiece = tuple["str | None", Type, "Annotation | None", int, int, int]
#: A memoised return list: whether it prints as written, and its items.
_ReturnsPiece = tuple[bool, tuple[_ReturnPiece, ...]]

_NO_ARGUMENTS = Arguments()
_KWARG_MARKER = _ArgumentPiece(_MARKER, True, "", TENSOR, None, None, 0, 0, 0)


def _on_first_line(span: Span) -> bool:
    return span.line == 1 and span.end_line == 1


def _moved_annotation(annotation: Annotation, file: str, line: int, start: int) -> Annotation:
    """A memoised piece's annotation at its place in the file.

    Its span is its alias set's, which is one letter or a few joined by "|".
    """
    width = annotation.span.end_column - annotation.span.column
    return Annotation(
        annotation.alias_set,
        annotation.is_write,
        annotation.alias_set_after,
        span_from_fields((file, line, start, line, start + width)),
    )


#: A default string literal that cannot contain a separator of Note [Piecewise parsing]:
#: no comma or parenthesis, escaped or not (a backslash takes the character after it,
#: so an escaped quote does not end the literal).
_PLAIN_LITERAL = re.compile(r"""(?<==)(?:"(?:[^"\\,()]|\\[^,()])*"|'(?:[^'\\,()]|\\[^,()])*')""")


def _literals_hold_no_separator(text: str) -> bool:
    """Whether every quote in ``text`` belongs to a :data:`_PLAIN_LITERAL`."""
    rest = _PLAIN_LITERAL.sub("", text)
    return "'" not in rest and '"' not in rest


def _parser() -> Lark:
    """The Lark parser, loaded on first use (Note [Lark on demand])."""
    global _NAME_ERRORS, _PIECE_ERRORS, _lark_loaded
    if not _lark_loaded:
        from lark.exceptions import UnexpectedInput, VisitError

        _NAME_ERRORS = (UnexpectedInput, VisitError, SemanticProblems)
        _PIECE_ERRORS = (UnexpectedInput, VisitError, SemanticProblems, SchemacError)
        _lark_loaded = True
    return schema_parser()


def _terminal_patterns() -> dict[str, str]:
    return terminal_patterns()


def _argument_shape(t: dict[str, str]) -> re.Pattern[str]:
    """``argument`` with at most a one-letter annotation.

    See ``_plain_argument``.
    """
    default = f"(?:{t['NUMBER']})|(?:{t['STRING']})|(?:{t['LIST']})|(?:{t['ARG_NAME']})"
    return re.compile(
        rf"{_type_shape(t, after=True)} (?P<name>{t['ARG_NAME']})(?:=(?P<default>{default}))?"
    )


def _return_shape(t: dict[str, str]) -> re.Pattern[str]:
    """``return_item`` with at most a one-letter annotation; see ``_plain_return``."""
    return re.compile(rf"{_type_shape(t)}(?: (?P<name>{t['ARG_NAME']}))?")


def _type_shape(t: dict[str, str], *, after: bool = False) -> str:
    """A built-in type, an optional one-letter annotation, its suffixes.

    ``after``: the annotation may also say what the alias set becomes
    (``Tensor(a -> *)``, torch's one such argument; an annotation's span is
    its alias set's either way).  Returns keep the narrower shape: where an
    unnamed annotated return ends is only checked for the short annotation.
    """
    suffix = rf"\?|\[(?:{t['SIZE']})?\]"
    becomes = ""
    if after:
        aliases = rf"{t['ALIAS']}(?:\|{t['ALIAS']})*"
        becomes = rf"(?:{t['ALIAS_ARROW']}(?P<after>{t['STAR']}|{aliases}))?"
    annotation = rf"(?:\((?P<alias>{t['ALIAS']})(?P<write>{t['WRITE']})?{becomes}\))?"
    return rf"(?P<type>{t['TYPE_NAME']}){annotation}(?P<suffixes>(?:{suffix})*)"


#: One type suffix in the text ``_argument_shape`` accepted.
_SUFFIX = re.compile(r"\?|\[[0-9]*\]")


def _base_name_shape() -> re.Pattern[str]:
    """``[NAMESPACE] BASE_NAME`` from the grammar's terminals; see Note [Token shortcut]."""
    patterns = _terminal_patterns()
    return re.compile(f"({patterns['NAMESPACE']})?({patterns['BASE_NAME']})")


def _transform_piece(piece: str, start: str) -> object:
    """Parse ``piece`` from ``start`` with spans relative to the piece itself."""
    tree = _parser().parse(piece, start=start)
    from schemac.frontend.schema_transformer import ToIR

    transformer = ToIR("", 1, 1)
    result = transformer.transform(tree)
    if transformer.problems:
        raise SemanticProblems(transformer.problems)
    return result


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
    parser = _parser()
    from lark.exceptions import UnexpectedInput, UnexpectedToken, VisitError

    from schemac.frontend.schema_syntax import syntax_diagnostic
    from schemac.frontend.schema_transformer import ToIR

    try:
        tree = parser.parse(text, start=start)
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
    parser = _parser()
    from lark.exceptions import UnexpectedInput, VisitError

    from schemac.frontend.schema_syntax import syntax_diagnostic
    from schemac.frontend.schema_transformer import ToIR

    try:
        tree = parser.parse(text, start="schema")
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
