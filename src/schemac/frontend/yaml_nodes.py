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

from pathlib import Path

import attrs
import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from schemac.diagnostics import Diagnostic, Span

try:
    _Loader: type = yaml.CSafeLoader
except AttributeError:  # PyYAML built without libyaml
    _Loader = yaml.SafeLoader

__all__ = [
    "MappingNode",
    "Node",
    "ScalarNode",
    "SequenceNode",
    "YamlDocument",
    "describe",
    "read_yaml",
    "scalar_value",
    "span_of",
]

_STR = "tag:yaml.org,2002:str"
_BOOL = "tag:yaml.org,2002:bool"
_NULL = "tag:yaml.org,2002:null"
_INT = "tag:yaml.org,2002:int"


@attrs.frozen
class YamlDocument:
    """One loaded file: its name, its text and its root node (None if empty)."""

    file: str
    text: str
    root: Node | None


def span_of(file: str, node: Node) -> Span:
    """The 1-based span of ``node``; a value ending at a line break ends on its line."""
    start, end = node.start_mark, node.end_mark
    end_line, end_column = end.line + 1, end.column + 1
    if end.column == 0 and end.line > start.line:
        # Block scalars and collections end at the start of the next line;
        # point at the end of the previous one instead.
        end_line, end_column = end.line, start.column + 2
    return Span(file, start.line + 1, start.column + 1, end_line, end_column)


def read_yaml(
    path: str | Path, display_name: str | None = None
) -> tuple[YamlDocument | None, list[Diagnostic]]:
    """Read and compose one YAML file; syntax errors become diagnostics."""
    file = display_name or str(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        return None, [Diagnostic(Span.point(file, 1, 1), f"no such file: {file}")]
    except (OSError, UnicodeDecodeError) as error:
        return None, [Diagnostic(Span.point(file, 1, 1), f"cannot read {file}: {error}")]
    return parse_yaml_text(text, file)


def parse_yaml_text(text: str, file: str) -> tuple[YamlDocument | None, list[Diagnostic]]:
    try:
        root = yaml.compose(text, Loader=_Loader)
    except yaml.MarkedYAMLError as error:
        return None, [_syntax_diagnostic(file, text, error)]
    except yaml.YAMLError as error:
        return None, [Diagnostic(Span.point(file, 1, 1), f"invalid YAML: {error}")]
    return YamlDocument(file, text, root), []


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


def scalar_value(node: ScalarNode) -> object:
    """The Python value of a scalar, by the tag YAML's resolver gave it."""
    tag = node.tag
    if tag == _STR:
        return node.value
    if tag == _BOOL:
        return node.value.lower() in ("yes", "true", "on", "y")
    if tag == _NULL:
        return None
    if tag == _INT:
        try:
            return int(node.value.replace("_", ""), 0)
        except ValueError:
            return node.value
    try:
        return yaml.SafeLoader("").construct_object(node)
    except yaml.YAMLError:
        return node.value


def describe(node: Node) -> str:
    """How a value reads in a 'expected X, got Y' message."""
    if isinstance(node, MappingNode):
        return "a mapping"
    if isinstance(node, SequenceNode):
        return "a list"
    value = scalar_value(node)  # type: ignore[arg-type]
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
