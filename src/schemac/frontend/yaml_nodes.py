"""YAML text -> a node tree that remembers where every value was written.

PyYAML's ``load`` returns plain dicts and lists and forgets positions; the
reference works around that by stuffing a ``__line__`` key into each mapping,
which gives a line but no column and nothing for nested values.  We stop one
step earlier, at PyYAML's *composed* node graph, where every scalar, sequence
and mapping carries a start and end mark, and convert values ourselves.  This
is also faster than ``load``: the file is mostly plain strings, which need no
constructor at all.

PyYAML's C parser (libyaml) is used when it is installed; the pure-Python one
otherwise.  Both give 0-based marks; :func:`span_of` makes them 1-based.
"""

from __future__ import annotations

import operator
from pathlib import Path
from typing import Any

import attrs
import yaml
import yaml.reader
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode
from yaml.resolver import BaseResolver, Resolver

from schemac.diagnostics import Diagnostic, Span, span_from_fields
from schemac.frontend.input_files import InputFileError, read_input_text

#: The tag given to plain (unquoted, untagged) scalars while composing; their
#: YAML type (bool, int, null, ...) is resolved when a value is asked for.
PLAIN_TAG = "tag:schemac,plain"


class _DeferredResolver(BaseResolver):
    """Tags plain scalars PLAIN_TAG instead of running YAML's implicit resolvers.

    Resolution tries a few regular expressions per scalar and is a third of
    composing time; almost every plain scalar in these files is a name or a
    schema that is only ever used as a string.  :func:`scalar_value` resolves
    on demand with the standard resolver, so values are exactly what
    ``yaml.safe_load`` would give.
    """

    def resolve(self, kind: type, value: Any, implicit: tuple[bool, bool]) -> str:
        if kind is ScalarNode and implicit[0]:
            return PLAIN_TAG
        # Quoted scalars and collections (~5,400 per load) get the kind's default
        # tag, as BaseResolver.resolve gives them when no path resolver is
        # registered (none is, on this class), without its chain of tests.
        if not self.yaml_path_resolvers:
            return _DEFAULT_TAGS[kind]
        return str(super().resolve(kind, value, implicit))  # type: ignore[no-untyped-call]


_DEFAULT_TAGS: dict[type, str] = {
    ScalarNode: BaseResolver.DEFAULT_SCALAR_TAG,
    SequenceNode: BaseResolver.DEFAULT_SEQUENCE_TAG,
    MappingNode: BaseResolver.DEFAULT_MAPPING_TAG,
}


def _untracked_paths(composer: BaseResolver) -> None:
    """Make the composer's two per-node resolver hooks C-level no-ops, when they are no-ops.

    Note [Untracked resolver paths]
    ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
    The composer calls ``descend_resolver(parent, index)`` before and
    ``ascend_resolver()`` after every node (~67,000 Python calls per load of
    torch's files).  They only track where a node sits for *path* resolvers,
    and do nothing at all when none is registered, which is always the case
    here (``_DeferredResolver.resolve`` checks the same condition).  Then the
    instance gets builtins that accept the same arguments and return without
    running any Python code: ``operator.is_`` and ``tuple`` (whose ``()`` is a
    shared constant).  Builtins are not descriptors, so stored on the
    instance they are called with exactly the arguments the composer passes.
    The composed tree is the same; tests/frontend/test_yaml_tags.py checks it.
    """
    if not composer.yaml_path_resolvers:
        composer.descend_resolver = operator.is_  # type: ignore[method-assign,assignment]
        composer.ascend_resolver = tuple  # type: ignore[method-assign,assignment]


try:
    from yaml._yaml import CParser

    POSITIONS_IN_BYTES = True

    class _Composer(CParser, _DeferredResolver):
        def __init__(self, stream: str, *, track_paths: bool = False) -> None:
            CParser.__init__(self, stream)
            _DeferredResolver.__init__(self)
            if not track_paths:
                _untracked_paths(self)

except ImportError:  # PyYAML built without libyaml
    POSITIONS_IN_BYTES = False
    from yaml.composer import Composer
    from yaml.parser import Parser
    from yaml.reader import Reader
    from yaml.scanner import Scanner

    class _Composer(Reader, Scanner, Parser, Composer, _DeferredResolver):  # type: ignore[no-redef]
        def __init__(self, stream: str, *, track_paths: bool = False) -> None:
            Reader.__init__(self, stream)
            Scanner.__init__(self)
            Parser.__init__(self)
            Composer.__init__(self)
            _DeferredResolver.__init__(self)
            if not track_paths:
                _untracked_paths(self)


_STANDARD_RESOLVER = Resolver()

__all__ = [
    "MappingNode",
    "Node",
    "ScalarNode",
    "SequenceNode",
    "YamlDocument",
    "describe",
    "read_yaml",
    "scalar_value",
    "span_fields",
    "span_of",
    "string_value",
]

_STR = "tag:yaml.org,2002:str"
_BOOL = "tag:yaml.org,2002:bool"
_NULL = "tag:yaml.org,2002:null"


@attrs.frozen
class YamlDocument:
    """One loaded file: its name, its text and its root node (None if empty)."""

    file: str
    text: str
    root: Node | None


def span_of(file: str, node: Node) -> Span:
    """The 1-based span of ``node``; a value ending at a line break ends on its line."""
    return span_from_fields(span_fields(file, node))


def span_fields(file: str, node: Node) -> tuple[str, int, int, int, int]:
    """:func:`span_of`'s fields, without the :class:`Span` (packed as they are by
    :class:`~schemac.diagnostics.FieldSpans`, ~12,000 fields a load)."""
    start, end = node.start_mark, node.end_mark
    start_line = start.line
    end_line = end.line
    line = start_line + 1
    if end_line == start_line:
        # Most values: both line fields share one int object (a load keeps
        # ~25,000 of these spans, and every line number above 256 is an object).
        return (file, line, start.column + 1, line, end.column + 1)
    end_column = end.column
    if end_column == 0:
        # Block scalars and collections end at the start of the next line;
        # point at the end of the previous one instead.
        return (file, line, start.column + 1, end_line, start.column + 2)
    return (file, line, start.column + 1, end_line + 1, end_column + 1)


def read_yaml(
    path: str | Path, display_name: str | None = None
) -> tuple[YamlDocument | None, list[Diagnostic]]:
    """Read and compose one YAML file; syntax errors become diagnostics."""
    file = display_name or str(path)
    try:
        text = read_input_text(path, file)
    except InputFileError as error:
        return None, [error.diagnostic]
    return parse_yaml_text(text, file)


def parse_yaml_text(text: str, file: str) -> tuple[YamlDocument | None, list[Diagnostic]]:
    try:
        composer = _Composer(text)
        try:
            root = composer.get_single_node()
        finally:
            composer.dispose()
    except yaml.MarkedYAMLError as error:
        return None, [_syntax_diagnostic(file, text, error)]
    except yaml.reader.ReaderError as error:
        return None, [_character_diagnostic(file, text, error)]
    except yaml.YAMLError as error:
        return None, [Diagnostic(Span.point(file, 1, 1), f"invalid YAML: {error}")]
    return YamlDocument(file, text, root), []


def _character_diagnostic(file: str, text: str, error: yaml.reader.ReaderError) -> Diagnostic:
    """A character YAML does not allow in a file (a control character), where it is."""
    position = error.position if isinstance(error.position, int) else 0
    if POSITIONS_IN_BYTES:  # libyaml counts UTF-8 bytes, PyYAML's reader characters
        position = len(text.encode("utf-8")[: max(position, 0)].decode("utf-8", "ignore"))
    position = min(max(position, 0), len(text))
    line = text.count("\n", 0, position) + 1
    column = position - (text.rfind("\n", 0, position) + 1) + 1
    code = (
        error.character
        if isinstance(error.character, int)
        else ord(text[position : position + 1] or "\0")
    )
    return Diagnostic(
        Span.point(file, line, column),
        f"invalid YAML: the control character U+{code:04X} is not allowed in a YAML file",
        'remove it, or write it as an escape inside a double-quoted string ("\\x1b")',
    )


def _syntax_diagnostic(file: str, text: str, error: yaml.MarkedYAMLError) -> Diagnostic:
    mark = error.problem_mark or error.context_mark
    if mark is not None and error.context_mark is not None and mark.line >= len(text.splitlines()):
        # The parser ran off the end of the file looking for a closing
        # bracket or quote; where that construct opened is more useful.
        mark = error.context_mark
    line, column = (mark.line + 1, mark.column + 1) if mark is not None else (1, 1)
    problem = error.problem or "syntax error"
    message = f"invalid YAML: {problem}"
    hint = None
    if error.context:
        hint = error.context
        if error.context_mark is not None and error.context_mark is not mark:
            hint += f" (line {error.context_mark.line + 1})"
    if "tab" in problem:
        hint = "YAML indentation must use spaces, not tabs"
    return Diagnostic(Span.point(file, line, column), message, hint)


def string_value(node: Node) -> str | None:
    """The scalar's text if YAML reads it as a string, else None."""
    if not isinstance(node, ScalarNode):
        return None
    tag = node.tag
    if tag == PLAIN_TAG:  # nearly every node: names, schemas, keys
        value: str = node.value  # a composed scalar's value is always a str
        # _resolved_tag's first test, inlined: this runs for every key of every entry.
        if (value[:1].isalpha() and value not in _WORDS_WITH_TYPES) or _resolved_tag(value) == _STR:
            return value
        return None
    if tag == _STR:
        return str(node.value)
    return None


#: The only plain scalars starting with a letter that YAML 1.1 does not read as
#: strings: PyYAML's bool and null spellings (its other implicit types start
#: with a digit, a sign, ".", "~", "<" or "=").
_WORDS_WITH_TYPES = frozenset(
    spelling
    for word in ("yes", "no", "true", "false", "on", "off", "null")
    for spelling in (word, word.capitalize(), word.upper())
)


def _resolved_tag(value: str) -> str:
    if value[:1].isalpha() and value not in _WORDS_WITH_TYPES:
        return _STR  # names, schemas, kernel names: nearly every scalar
    if value and value[0] not in _STANDARD_RESOLVER.yaml_implicit_resolvers:
        return _STR  # no implicit type starts with this character
    return str(_STANDARD_RESOLVER.resolve(ScalarNode, value, (True, False)))  # type: ignore[no-untyped-call]


def scalar_value(node: ScalarNode) -> object:
    """The Python value of a scalar, as ``yaml.safe_load`` would give it."""
    tag = node.tag
    if tag == PLAIN_TAG:
        tag = _resolved_tag(node.value)
    if tag == _STR:
        return node.value
    if tag == _BOOL:
        spelling = node.value.lower()
        if spelling in ("yes", "true", "on", "y"):
            return True
        if spelling in ("no", "false", "off", "n"):
            return False
        return InvalidScalar(tag, node.value)  # `!!bool maybe`
    if tag == _NULL:
        return (
            None
            if node.value in ("", "~", "null", "Null", "NULL")
            else InvalidScalar(tag, node.value)
        )
    try:
        resolved = ScalarNode(tag, node.value, node.start_mark, node.end_mark, node.style)
        return yaml.SafeLoader("").construct_object(resolved)
    except yaml.YAMLError:
        return node.value
    except Exception:
        # PyYAML's constructors raise ValueError, KeyError, ... for text that
        # does not fit the explicit tag; the value is then of no type at all.
        return InvalidScalar(tag, node.value)


@attrs.frozen
class InvalidScalar:
    """A scalar whose explicit tag does not fit its text: no field accepts it."""

    tag: str
    text: str

    def describe(self) -> str:
        short = self.tag.rpartition(":")[2]
        return f"'{_short(self.text)}' tagged !!{short}, which is not a valid {short}"


def describe(node: Node) -> str:
    """How a value reads in a 'expected X, got Y' message."""
    if isinstance(node, MappingNode):
        return "a mapping"
    if isinstance(node, SequenceNode):
        return "a list"
    value = scalar_value(node)  # type: ignore[arg-type]
    if isinstance(value, InvalidScalar):
        return value.describe()
    if value is None:
        return "an empty value"
    if isinstance(value, bool):
        return f"the boolean {node.value}"
    if isinstance(value, (int, float)):
        return f"the number {node.value}"
    if isinstance(value, str):
        return f"the string '{_short(value)}'"
    return f"'{_short(str(node.value))}'"


def _short(text: str) -> str:
    text = text.replace("\n", " ").strip()
    return text if len(text) <= 40 else text[:37] + "..."
