"""The functions a derivative formula may call, read from C++ headers.

Formulas are compiled inside PyTorch's autograd library, where the helpers of
``torch/csrc/autograd/FunctionsManual.h`` and ``VariableTypeUtils.h`` are in
scope.  Reading them from the target's own headers (rather than keeping a
list per release) makes the formula check exact for any release: a call to a
name the headers do not declare is then an error, not a guess.

The reading is lexical, not a C++ parse: every identifier followed by ``(``
(optionally through template arguments) outside comments and preprocessor
lines, minus keywords and ALL_CAPS macros.  That over-approximates (a call
inside an inline body counts too), which only makes the check slightly less
strict, never wrong.  ``tools/extract_profile.py`` uses the same function, so a
profile's ``autograd_helpers`` list and a run-time read agree.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from pathlib import Path

from schemac.cachedir import cache_subdir, content_key, store
from schemac.diagnostics import Diagnostic, InputError, Span

#: Bumped when the layout of the stored names changes.
_FORMAT = "schemac-helper-names-1"

#: Where the helpers live, relative to an installed torch's ``include/``.
HELPER_HEADERS = (
    "torch/csrc/autograd/FunctionsManual.h",
    "torch/csrc/autograd/VariableTypeUtils.h",
)

_COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.DOTALL)
_PREPROCESSOR = re.compile(r"^\s*#[^\n]*", re.MULTILINE)
_CALLABLE = re.compile(r"\b([A-Za-z_]\w*)\s*(?:<[^<>;(){}]*>)?\s*\(")
_MACRO = re.compile(r"[A-Z0-9_]+")
_KEYWORDS = frozenset(
    (
        *("alignas", "alignof", "catch", "decltype", "defined", "for", "if", "noexcept"),
        *("operator", "return", "sizeof", "static_assert", "switch", "while"),
    )
)


def header_functions(text: str) -> frozenset[str]:
    """The names ``text`` (a C++ header) declares or calls as functions."""
    code = _PREPROCESSOR.sub(" ", _COMMENT.sub(" ", text))
    return frozenset(
        name
        for name in (m.group(1) for m in _CALLABLE.finditer(code))
        if name not in _KEYWORDS and not _MACRO.fullmatch(name)
    )


def read_helper_names(paths: Iterable[Path]) -> frozenset[str]:
    """The helper names of the given files: C++ headers, or names files.

    A file ending in ``.txt`` is a names file (one name a line, ``#``
    comments); anything else is read as a header.  InputError if one cannot
    be read.
    """
    names: set[str] = set()
    problems = []
    for path in paths:
        try:
            text = Path(path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as error:
            problems.append(
                Diagnostic(
                    Span.point(str(path), 0, 0),
                    f"cannot read the derivative helpers file: {error}",
                    "give a C++ header or a .txt file with one name a line",
                )
            )
            continue
        if str(path).endswith(".txt"):
            names.update(
                line.split("#", 1)[0].strip()
                for line in text.splitlines()
                if line.split("#", 1)[0].strip()
            )
        else:
            names.update(_stored_header_functions(text))
    if problems:
        raise InputError(problems)
    return frozenset(names)


def _stored_header_functions(text: str) -> frozenset[str]:
    """:func:`header_functions` of ``text``, kept in schemac's cache.

    Scanning torch's two helper headers (50 KB) is ~8 ms of every compile
    given a derivatives.yaml, a few percent of a small library's; the names
    depend only on the text and on this module's code, whose source is in
    the file's key (so any change to the scan misses).
    """
    directory = cache_subdir("helpers")
    try:
        code = Path(__file__).read_bytes()
    except OSError:
        directory = None
    if directory is None:
        return header_functions(text)
    path = directory / f"{content_key([_FORMAT, code, text])}.json"
    try:
        stored = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        stored = None
    if isinstance(stored, list) and all(isinstance(name, str) for name in stored):
        return frozenset(stored)
    names = header_functions(text)
    store(path, json.dumps(sorted(names)).encode())
    return names


def installed_helper_headers(torch_include: Path | None) -> tuple[Path, ...]:
    """The helper headers under an installed torch's ``include/`` that exist."""
    if torch_include is None:
        return ()
    return tuple(p for p in (torch_include / h for h in HELPER_HEADERS) if p.is_file())
