"""Loads the schema grammar, shipped inside the package, into one LALR parser.

The grammar's source of truth is ``grammar/schema.lark`` at the top of the
repository; the wheel build copies it to ``schemac/grammar/schema.lark``.  An
editable install or a source checkout has no such copy, so the loader falls back
to the repository file.

Lark itself is imported only when a parser is built: the parser's shortcuts
need only the grammar's terminal patterns, kept on disk beside the parser's
tables (:func:`terminal_patterns`, Note [Lark on demand] in
:mod:`schemac.frontend.schema_parser`).
"""

from __future__ import annotations

import functools
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from schemac.cachedir import cache_subdir, content_key, store

if TYPE_CHECKING:
    from lark import Lark

GRAMMAR_NAME = "schema.lark"

#: The rules a parse may start at: a whole schema, or one piece of it.
START_SYMBOLS = ("schema", "operator_name", "argument_item", "returns")


def grammar_text() -> str:
    # The package's own folder, not ``importlib.resources``: its first call
    # imports its readers (zipfile among them), 3-5 ms of every compile, for
    # a package that is always a directory (Lark and Mako read files here).
    packaged = Path(__file__).resolve().parents[1] / "grammar" / GRAMMAR_NAME
    if packaged.is_file():
        return packaged.read_text(encoding="utf-8")
    checkout = Path(__file__).resolve().parents[3] / "grammar" / GRAMMAR_NAME
    return checkout.read_text(encoding="utf-8")


def build_schema_parser(*, strict: bool = False, cache: str | None = None) -> Lark:
    """A fresh LALR parser for schema strings.

    ``strict=True`` makes Lark prove that no two terminals collide (it needs the
    optional ``interegular`` package); the grammar tests build it that way, so
    the runtime parser can skip the check.  ``cache`` names a file where Lark
    keeps the built tables (see :func:`parser_cache_path`).
    """
    from lark import Lark

    options: dict[str, object] = {"cache": cache} if cache is not None else {}
    return Lark(
        grammar_text(),
        parser="lalr",
        lexer="contextual",
        strict=strict,
        maybe_placeholders=True,
        start=list(START_SYMBOLS),
        **options,
    )


def parser_cache_path(text: str) -> str | None:
    """Where the built LALR tables for grammar ``text`` are kept, if anywhere.

    Building the tables costs about 0.15 s of CPU, a tenth of a whole compile;
    loading them costs about 2 ms.  The name hashes everything the tables
    depend on: the grammar text, the start symbols, and the Lark and Python
    versions (see :mod:`schemac.cachedir`).
    """
    import lark

    directory = cache_subdir("parser")
    if directory is None:
        return None
    key = content_key((text, repr(START_SYMBOLS), lark.__version__, sys.version))
    return str(directory / f"schema-{key}.lark-cache")


@functools.cache
def schema_parser() -> Lark:
    """The LALR parser for schema strings, built once per process.

    The tree is returned untransformed; :mod:`schemac.frontend.schema_parser`
    turns it into IR.  Building an LALR table is the slow part, hence the memo;
    it holds no state that changes behaviour.  The tables are also kept on disk
    between processes (:func:`parser_cache_path`).
    """
    return build_schema_parser(cache=parser_cache_path(grammar_text()))


#: Bumped when the layout of the stored terminal patterns changes.
_TERMINALS_FORMAT = "schemac-terminals-1"


@functools.cache
def terminal_patterns() -> dict[str, str]:
    """Every terminal of the loaded grammar: its name -> its regular expression.

    What :func:`schema_parser` would give as ``{t.name: t.pattern.to_regexp()
    for t in schema_parser().terminals}``, kept in a file of schemac's cache
    so that a process whose schemas all take the parser's shortcuts need not
    import Lark or load its tables (Note [Lark on demand]).  The file's name
    hashes the grammar text, the start symbols, Python's version and the text
    of Lark's ``__init__.py`` (which holds ``__version__``; the tables' key
    uses the same version, read without importing Lark).  Without a cache, or
    when Lark cannot be found, the patterns come from the loaded parser.
    """
    text = grammar_text()
    path = _terminals_path(text)
    if path is not None:
        try:
            stored = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            stored = None
        if isinstance(stored, dict) and all(
            isinstance(k, str) and isinstance(v, str) for k, v in stored.items()
        ):
            return stored
    patterns = {t.name: t.pattern.to_regexp() for t in schema_parser().terminals}
    if path is not None:
        store(path, json.dumps(patterns, sort_keys=True).encode())
    return patterns


def _terminals_path(text: str) -> Path | None:
    lark_init = _lark_init_text()
    if lark_init is None:
        return None
    directory = cache_subdir("parser")
    if directory is None:
        return None
    key = content_key((_TERMINALS_FORMAT, text, repr(START_SYMBOLS), lark_init, sys.version))
    return directory / f"terminals-{key}.json"


def _lark_init_text() -> str | None:
    """The text of the ``lark/__init__.py`` an import would load, without importing it."""
    module = sys.modules.get("lark")
    origin = getattr(module, "__file__", None)
    if origin is None:
        import importlib.util

        try:
            spec = importlib.util.find_spec("lark")
        except (ImportError, ValueError):
            return None
        origin = None if spec is None else spec.origin
    if not isinstance(origin, str):
        return None
    try:
        return Path(origin).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
