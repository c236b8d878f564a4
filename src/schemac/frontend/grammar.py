"""Loads the schema grammar, shipped inside the package, into one LALR parser.

The grammar's source of truth is ``grammar/schema.lark`` at the top of the
repository; the wheel build copies it to ``schemac/grammar/schema.lark``.  An
editable install or a source checkout has no such copy, so the loader falls back
to the repository file.
"""

from __future__ import annotations

import functools
import sys
from pathlib import Path

import lark
from lark import Lark

from schemac.cachedir import cache_subdir, content_key

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
