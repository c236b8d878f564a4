"""Source positions and the one error type every user-facing failure becomes.

Every stage of schemac reports problems as :class:`Diagnostic` values that point
at a :class:`Span` in an input file.  They are collected (never raised one at a
time in the middle of a stage), sorted by position, and raised together as a
:class:`SchemacError` at the stage boundary, so a user sees every mistake in a
file in one run.  :func:`render` is the single place that turns a diagnostic
into the ``file:line:col: error: ...`` text with the source line and a caret.

This module imports nothing else from schemac: the IR, the front end, the
passes and the backends all depend on it.
"""

from __future__ import annotations

import enum
import functools
import os
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import NamedTuple

import attrs


class Span(NamedTuple):
    """A region of an input file; lines and columns count from 1.

    ``end_column`` is exclusive, so a one-character span has
    ``end_column == column + 1``.

    A named tuple rather than a frozen attrs class: a load builds ~55,000
    spans (a field of every IR node that came from a file), and a tuple is
    built in half the time, or a quarter through :data:`span_from_fields`.
    Equality, ordering and ``repr`` are the attrs class's (fieldwise, in this
    order).
    """

    file: str
    line: int
    column: int
    end_line: int
    end_column: int

    @classmethod
    def point(cls, file: str, line: int, column: int, length: int = 1) -> Span:
        return cls(file, line, column, line, column + max(length, 1))

    def shifted(self, line: int, column: int) -> Span:
        """This span re-anchored inside a text that starts at ``line:column``.

        Used when a schema string is parsed on its own and its positions must be
        moved to where the string stands in the YAML file.
        """
        first_line_shift = column - 1 if self.line == 1 else 0
        last_line_shift = column - 1 if self.end_line == 1 else 0
        return Span(
            self.file,
            self.line + line - 1,
            self.column + first_line_shift,
            self.end_line + line - 1,
            self.end_column + last_line_shift,
        )

    def with_file(self, file: str) -> Span:
        return self._replace(file=file)

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}"


#: ``Span(*fields)`` as one C-level call, without the named tuple's Python
#: ``__new__``: for the loops that build a span per YAML value or schema argument.
span_from_fields: Callable[[tuple[str, int, int, int, int]], Span] = functools.partial(
    tuple.__new__, Span
)


#: The span given to IR nodes that no input file describes (synthesised ones).
NO_SPAN = Span("<generated>", 0, 0, 0, 0)


class FieldSpans:
    """The ``(key, span)`` pairs of one YAML entry's fields, in the order written.

    Iterates like the tuple of pairs it replaces, but holds the fields packed
    in one flat tuple, six items a field (key, file, line, column, end line,
    end column): a load keeps one per entry, ~15,000 fields for torch's files,
    and a pair tuple and a span each cost ~150 bytes a field where the packed
    form costs ~50 (the strings and line numbers are shared either way).  The
    spans are made again when asked for, which only diagnostics and
    ``dump-ir --spans`` do.  Equal when the pairs are equal.
    """

    __slots__ = ("_flat",)

    def __init__(self, pairs: Iterable[tuple[str, Span]] = ()) -> None:
        flat: list[object] = []
        for key, span in pairs:
            flat.append(key)
            flat.extend(span)
        self._flat: tuple[object, ...] = tuple(flat)

    @classmethod
    def packed(cls, flat: tuple[object, ...]) -> FieldSpans:
        """From the packed form itself: six items a field, as :meth:`__init__` lays them out."""
        spans = cls.__new__(cls)
        spans._flat = flat
        return spans

    def __iter__(self) -> Iterator[tuple[str, Span]]:
        flat = self._flat
        for i in range(0, len(flat), 6):
            yield flat[i], span_from_fields(flat[i + 1 : i + 6])  # type: ignore[misc,arg-type]

    def __len__(self) -> int:
        return len(self._flat) // 6

    def get(self, key: str) -> Span | None:
        """The span of field ``key``, or None if the entry did not write it."""
        flat = self._flat
        for i in range(0, len(flat), 6):
            if flat[i] == key:
                return span_from_fields(flat[i + 1 : i + 6])  # type: ignore[arg-type]
        return None

    def __eq__(self, other: object) -> bool:
        if isinstance(other, FieldSpans):
            return self._flat == other._flat
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self._flat)

    def __repr__(self) -> str:
        return f"FieldSpans({tuple(self)!r})"


def as_field_spans(value: FieldSpans | Iterable[tuple[str, Span]]) -> FieldSpans:
    """``value`` as :class:`FieldSpans` (the IR's converter for its ``field_spans``)."""
    return value if isinstance(value, FieldSpans) else FieldSpans(value)


#: No field written (the default of the IR's ``field_spans``).
NO_FIELD_SPANS = FieldSpans()


class Severity(enum.Enum):
    ERROR = "error"
    WARNING = "warning"
    NOTE = "note"


@attrs.frozen
class Diagnostic:
    span: Span
    message: str
    hint: str | None = None
    severity: Severity = Severity.ERROR

    def sort_key(self) -> tuple[str, int, int, str]:
        return (self.span.file, self.span.line, self.span.column, self.message)

    @property
    def is_error(self) -> bool:
        return self.severity is Severity.ERROR

    def as_error(self) -> Diagnostic:
        """This diagnostic with error severity (``--Werror``)."""
        if self.severity is Severity.ERROR:
            return self
        return attrs.evolve(self, severity=Severity.ERROR, message=f"{self.message} [-Werror]")


class SchemacError(Exception):
    """Raised for any invalid input; carries every diagnostic found.

    ``str()`` gives the diagnostics without source excerpts; use :func:`render`
    (or :meth:`render`) for the full ``file:line:col`` report with carets.
    """

    def __init__(self, diagnostics: Iterable[Diagnostic]) -> None:
        ordered = tuple(sorted(diagnostics, key=Diagnostic.sort_key))
        if not ordered:
            raise ValueError("SchemacError needs at least one diagnostic")
        self.diagnostics = ordered
        super().__init__("\n".join(_headline(d) for d in ordered))

    @property
    def span(self) -> Span:
        return self.diagnostics[0].span

    @property
    def errors(self) -> tuple[Diagnostic, ...]:
        return tuple(d for d in self.diagnostics if d.is_error)

    @property
    def warnings(self) -> tuple[Diagnostic, ...]:
        return tuple(d for d in self.diagnostics if d.severity is Severity.WARNING)

    def render(self, sources: Mapping[str, str] | None = None) -> str:
        return render_all(self.diagnostics, sources)


class SchemaSyntaxError(SchemacError):
    """A schema string does not follow the grammar."""


class SchemaSemanticError(SchemacError):
    """A schema string parses but breaks a rule of the schema language."""


class InputError(SchemacError):
    """A YAML input file is malformed or names things that do not exist."""


class PassError(SchemacError):
    """A pass found the IR inconsistent (e.g. a structured delegate is missing)."""


class DiagnosticSink:
    """Collects diagnostics during one stage; raises them together at the end.

    Warnings are collected beside errors: they travel with the errors when
    the stage fails (so a run shows both), and are otherwise handed on by the
    stage (``warnings``) for the caller to print.  Truthiness and
    :meth:`raise_if_any` consider errors only.
    """

    def __init__(self) -> None:
        self._items: list[Diagnostic] = []
        self._warnings: list[Diagnostic] = []

    def error(self, span: Span, message: str, hint: str | None = None) -> None:
        self._items.append(Diagnostic(span, message, hint))

    def warning(self, span: Span, message: str, hint: str | None = None) -> None:
        self._warnings.append(Diagnostic(span, message, hint, Severity.WARNING))

    def extend(self, diagnostics: Iterable[Diagnostic]) -> None:
        for diagnostic in diagnostics:
            (self._items if diagnostic.is_error else self._warnings).append(diagnostic)

    def __bool__(self) -> bool:
        return bool(self._items)

    def mark(self) -> tuple[int, int]:
        """How many errors and warnings there are now, for :meth:`rollback`."""
        return len(self._items), len(self._warnings)

    def rollback(self, mark: tuple[int, int]) -> None:
        """Forget what was collected since :meth:`mark` gave ``mark``."""
        del self._items[mark[0] :]
        del self._warnings[mark[1] :]

    @property
    def diagnostics(self) -> tuple[Diagnostic, ...]:
        """The errors (see :attr:`warnings`)."""
        return tuple(self._items)

    @property
    def warnings(self) -> tuple[Diagnostic, ...]:
        return tuple(self._warnings)

    def raise_if_any(
        self, error_type: type[SchemacError] = InputError, *, werror: bool = False
    ) -> None:
        """Raise the errors (and the warnings beside them) if there are any.

        With ``werror`` the warnings count as errors.
        """
        warnings = [w.as_error() for w in self._warnings] if werror else self._warnings
        if self._items or (werror and warnings):
            raise error_type([*self._items, *warnings])


def _headline(diag: Diagnostic) -> str:
    # A span without a line (the command line, a missing torch) names only its "file".
    where = diag.span if diag.span.line >= 1 else diag.span.file
    return printable(f"{where}: {diag.severity.value}: {diag.message}")


def _escape_char(char: str) -> str:
    code = ord(char)
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def printable(text: str) -> str:
    """``text`` with every character a terminal would act on written as an escape.

    Note [Diagnostics print no control characters]: messages quote YAML
    values and file names; an ESC, CR or line break in one must not recolour
    the terminal or forge a ``file:1:1: error:`` line, and a bidi override
    (U+202E) must not reorder what is shown.  So everything that is not
    printable (C0/C1 controls, format characters, line and paragraph
    separators) becomes ``\\x1b``, ``\\u202e``...; tabs too, but source lines
    expand theirs first.
    """
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else _escape_char(c) for c in text)


#: Characters of a source line shown on each side of the marked text.
_CONTEXT = 80


def render(diag: Diagnostic, sources: Mapping[str, str] | None = None) -> str:
    """``file:line:col: error: message``, the source line, a caret, a hint."""
    lines = [_headline(diag)]
    text = _source_text(diag.span.file, sources)
    if text is not None and diag.span.line >= 1:
        source_lines = text.splitlines()
        if diag.span.line <= len(source_lines):
            raw = source_lines[diag.span.line - 1].expandtabs(1)
            width = 1
            if diag.span.end_line == diag.span.line:
                width = max(diag.span.end_column - diag.span.column, 1)
            width = min(width, max(len(raw) - diag.span.column + 1, 1))
            # The caret moves with the escapes written before and inside it; a
            # long line (a huge scalar) is cut to a window around it.
            start = diag.span.column - 1
            before = printable(raw[:start])
            marked = printable(raw[start : start + width])
            after = printable(raw[start + width :])
            if len(before) > _CONTEXT:
                before = "..." + before[-(_CONTEXT - 3) :]
            if len(marked) > 2 * _CONTEXT:
                marked, after = marked[: 2 * _CONTEXT], "..."
            if len(after) > _CONTEXT:
                after = after[: _CONTEXT - 3] + "..."
            lines.append(f"  {before}{marked}{after}")
            lines.append("  " + " " * len(before) + "^" * max(len(marked), 1))
    if diag.hint:
        lines.append(printable(f"  hint: {diag.hint}"))
    return "\n".join(lines)


def render_all(diagnostics: Iterable[Diagnostic], sources: Mapping[str, str] | None = None) -> str:
    return "\n".join(render(d, sources) for d in diagnostics)


def _source_text(file: str, sources: Mapping[str, str] | None) -> str | None:
    if sources is not None and file in sources:
        return sources[file]
    if file.startswith("<"):
        return None
    return _read_source(file)


#: A source larger than this is not shown (inputs are refused beyond 64 MiB anyway).
_MAX_SOURCE_BYTES = 64 << 20


def _read_source(file: str) -> str | None:
    """The file's text for excerpts, or None; never blocks on a FIFO or reads a device.

    Undecodable bytes are shown as U+FFFD so that an error about them still
    gets its line and caret.
    """
    import stat

    try:
        handle = os.open(file, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        info = os.fstat(handle)
        if not stat.S_ISREG(info.st_mode) or info.st_size > _MAX_SOURCE_BYTES:
            return None
        with os.fdopen(handle, "rb", closefd=False) as stream:
            data = stream.read(_MAX_SOURCE_BYTES)
    except OSError:
        return None
    finally:
        os.close(handle)
    return data.decode("utf-8", errors="replace")


def count_text(diagnostics: Iterable[Diagnostic]) -> str:
    """``"3 errors"``, ``"1 error, 2 warnings"``, ``"1 warning"``: the closing line of a run."""
    items = list(diagnostics)
    errors = sum(1 for d in items if d.is_error)
    warnings = sum(1 for d in items if d.severity is Severity.WARNING)
    parts = []
    if errors or not warnings:
        parts.append(f"{errors} error{'s' if errors != 1 else ''}")
    if warnings:
        parts.append(f"{warnings} warning{'s' if warnings != 1 else ''}")
    return ", ".join(parts)


def did_you_mean(word: str, candidates: Iterable[str]) -> str | None:
    """A ``did you mean 'x'?`` hint for the closest candidate, if any is close."""
    import difflib

    matches = difflib.get_close_matches(word, list(candidates), n=1, cutoff=0.6)
    return f"did you mean '{matches[0]}'?" if matches else None
