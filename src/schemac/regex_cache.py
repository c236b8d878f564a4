"""Compiled regular expressions, kept between runs.

Note [Cached regular expressions]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
Every process compiles the regular expressions its modules build when they
are imported: PyYAML's reader (one character class spanning all of Unicode,
~4 ms alone), its resolver, ``platform`` (which attrs imports), Mako,
argparse, and schemac's own module-level patterns: ~100 compiles, about a
twentieth of an empty compile's CPU.  ``re`` keeps its compiled patterns in
memory only.  What compiling a pattern yields is fully determined by the
pattern, its flags and the Python version: ``re``'s compiler parses the
pattern, turns the parse into a list of integers (the "code" the C matcher
runs) and hands that to ``_sre.compile`` with the final flags and the group
names.  Those arguments are plain data, so they are kept in one marshalled
dict under schemac's cache directory, and a pattern found there is made with
the same ``_sre.compile`` call the compiler would have made, without parsing
or compiling it.

:func:`install` puts :class:`RegexCache` in the place of ``re``'s compiler
entry point (``re._compiler.compile``, ``sre_compile.compile`` before 3.11),
which ``re.compile`` calls after missing its in-memory cache; a pattern that
is not a string, or any flags with ``DEBUG``, goes to the compiler as before.
The file is per Python version and ``_sre.MAGIC`` (the code format), and a
stored entry is used only when it has exactly the expected shape and
``_sre.compile`` accepts it; should ``_sre.compile`` refuse what the compiler's
steps made, the compiler itself is asked.  (A stored pattern is not parsed,
so a warning ``re``'s parser gives, such as "possible nested set", shows in
the run that stores it only.)
:meth:`RegexCache.save` writes the dict back when this run added something.
Only the ``schemac`` command installs it (:mod:`schemac.launcher`), never an
importer of the package; an ``re`` whose internals look different, or
``SCHEMAC_NO_CACHE``, means nothing is installed.

This module imports nothing from schemac but :mod:`schemac.cachedir`.
"""

from __future__ import annotations

import marshal
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from schemac.cachedir import cache_subdir, content_key, store

_FORMAT = "schemac-regex 2"
#: Entries above which a save keeps only this run's.
_MAX_ENTRIES = 2000
#: ``re``'s DEBUG flag: such a compile prints the code, so it is never cached.
_DEBUG = int(re.DEBUG)

#: A stored pattern: final flags, code, groups - 1, group index, index group.
_Stored = tuple[int, list[int], int, dict[str, int], tuple["str | None", ...]]


class RegexCache:
    """The compiler's ``compile(pattern, flags)``, backed by the dict stored at ``path``."""

    def __init__(self, path: Path, compiler: Any) -> None:
        self.path = path
        self._compiler = compiler
        self._original: Callable[..., Any] = compiler.compile
        self._sre_compile: Callable[..., Any] = compiler._sre.compile
        #: Each entry marshalled on its own: only the patterns a run compiles
        #: are unpacked (the stored code lists of a ``-t headers`` run's
        #: patterns would otherwise stay in memory for the whole run).
        self._stored: dict[object, bytes] = _read(path)
        self._used: dict[object, bytes] = {}
        self.added = 0

    def compile(self, p: Any, flags: int = 0) -> Any:
        kind = type(p)
        if (kind is not str and kind is not bytes) or type(flags) is not int or flags & _DEBUG:
            return self._original(p, flags)
        key = (p, flags)
        data = self._stored.get(key)
        stored = _entry(data)
        if stored is not None:
            try:
                compiled = self._sre_compile(p, *stored)
            except (TypeError, ValueError, OverflowError, RuntimeError):
                pass  # not what this Python's matcher runs: compiled afresh below
            else:
                self._used[key] = data  # type: ignore[assignment]
                return compiled
        made = self._made(p, flags)
        if made is None:
            return self._original(p, flags)
        try:
            compiled = self._sre_compile(p, *made)
        except (TypeError, ValueError, OverflowError, RuntimeError):
            # Not the steps this Python's compiler takes: it compiles, nothing is stored.
            return self._original(p, flags)
        self._used[key] = marshal.dumps(made)
        self.added += 1
        return compiled

    def _made(self, pattern: str | bytes, flags: int) -> _Stored | None:
        """The arguments the compiler gives ``_sre.compile`` for ``pattern``.

        The steps of ``re._compiler.compile`` (3.10-3.13), whose result it
        returns; None when the parse does not look as expected (the caller
        then asks the compiler itself).
        """
        compiler = self._compiler
        parsed = compiler._parser.parse(pattern, flags)
        code = compiler._code(parsed, flags)
        state = parsed.state
        groupindex = state.groupdict
        indexgroup: list[str | None] = [None] * state.groups
        for name, index in groupindex.items():
            indexgroup[index] = name
        made = (
            flags | state.flags,
            [int(c) for c in code],  # opcodes are int subclasses, which marshal refuses
            state.groups - 1,
            dict(groupindex),
            tuple(indexgroup),
        )
        return made if _well_formed(made) else None

    def uninstall(self) -> None:
        if self._compiler.compile == self.compile:
            self._compiler.compile = self._original

    def save(self) -> None:
        """Store what was compiled anew (nothing if every lookup hit); errors are ignored."""
        if not self.added:
            return
        entries = {**self._stored, **self._used}
        if len(entries) > _MAX_ENTRIES:
            entries = dict(self._used)
        try:
            data = marshal.dumps(entries)
        except ValueError:
            return
        store(self.path, data)


def _well_formed(entry: object) -> bool:
    """Whether ``entry`` has the shape of a :data:`_Stored` (``_sre.compile``
    itself checks the code's items, raising on anything it cannot run)."""
    if type(entry) is not tuple or len(entry) != 5:
        return False
    final, code, groups, groupindex, indexgroup = entry
    return (
        type(final) is int
        and type(code) is list
        and type(groups) is int
        and type(groupindex) is dict
        and type(indexgroup) is tuple
    )


def _read(path: Path) -> dict[object, bytes]:
    try:
        loaded = marshal.loads(path.read_bytes())
    except (OSError, ValueError, EOFError, TypeError):
        return {}
    if not isinstance(loaded, dict):
        return {}
    return {k: v for k, v in loaded.items() if type(v) is bytes}


def _entry(data: bytes | None) -> _Stored | None:
    """A stored entry unpacked, if it is one."""
    if data is None:
        return None
    try:
        entry = marshal.loads(data)
    except (ValueError, EOFError, TypeError):
        return None
    return entry if _well_formed(entry) else None


def _compiler_module() -> Any:
    """The module whose ``compile`` ``re.compile`` calls, if it looks as expected."""
    compiler = getattr(re, "_compiler", None) or sys.modules.get("sre_compile")
    needed = ("compile", "_code", "_parser", "_sre", "isstring")
    if compiler is None or not all(hasattr(compiler, name) for name in needed):
        return None
    if not hasattr(compiler._sre, "compile") or not hasattr(compiler._parser, "parse"):
        return None
    return compiler


def install() -> RegexCache | None:
    """Make ``re`` compile through a :class:`RegexCache`; None if it cannot or should not."""
    compiler = _compiler_module()
    if compiler is None or isinstance(getattr(compiler.compile, "__self__", None), RegexCache):
        return None
    directory = cache_subdir("regex")
    if directory is None:
        return None
    which = [_FORMAT, sys.version, str(getattr(compiler._sre, "MAGIC", "")), compiler.__name__]
    cache = RegexCache(directory / f"{content_key(which)}.marshal", compiler)
    compiler.compile = cache.compile
    return cache
