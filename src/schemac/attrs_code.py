"""The compiled code of attrs' generated methods, kept between runs.

Note [Cached attrs methods]: attrs writes each class's ``__init__``,
``__eq__``, ``__hash__``, ``__repr__``... as Python source when the class is
defined and compiles it with the builtin ``compile``.  A ``schemac compile
-t all`` defines about 260 attrs classes (the IR, the views and plans of
every backend), and compiling their methods is ~0.09 s of every run: a third
of the import time, the largest single part of an empty compile's floor.
The source attrs generates for a class depends only on the class's
definition, so the code objects can be kept like ``.pyc`` files are, with
one exception: ``__hash__`` mixes in a per-class integer, the string hash of
a name derived from the class's, which changes with ``PYTHONHASHSEED`` in
every process.  That number is replaced by a stand-in before the source is
looked up, and the cached code gets this process's value back in its
constants; a source where the number's text is not exactly one constant is
compiled directly.  (Should attrs name things differently, the
lookups of hashable classes just miss: slower, never wrong.)

:func:`install` points attrs' ``compile`` at :class:`CodeCache`, which looks
each (file name, source) pair up in one store file under schemac's cache
directory (an index and the marshalled code of each entry, read by entry:
Note [Stored code read by entry]) and compiles only what it does not hold;
:meth:`CodeCache.save` writes the store back when something was added.  The key is the whole source
text and the name attrs gave it, and the file is per attrs and Python
version (``marshal``'s format is Python's), so a hit is exactly what
``compile`` would have returned.  Only the ``schemac`` command installs it
(:mod:`schemac.launcher`), never an importer of the package, and only when
the no-op check did not already end the run.  With ``SCHEMAC_NO_CACHE`` set,
or an attrs that does not compile through a module-level ``compile``,
nothing is installed.

This module imports nothing from schemac but :mod:`schemac.cachedir` and
:mod:`schemac.digests`.
"""

from __future__ import annotations
import __future__

import builtins
import functools
import marshal
import operator
import os
import re
import sys
import types
from pathlib import Path
from typing import Any, TypeGuard

from schemac.cachedir import cache_subdir, content_key, store
from schemac.digests import hex_of

#: Entries above which a save keeps only this run's (the dict would otherwise
#: only grow as schemac's classes change).
_MAX_ENTRIES = 4000
_FORMAT = "schemac-attrs-code 6"
#: What attrs names the methods of a class: ``<attrs generated methods
#: MODULE.QUALNAME>``, with ``-N`` before the ``>`` for a redefinition; the
#: ``__hash__`` it adds to its own classes alone is ``<attrs generated
#: __hash__ MODULE.QUALNAME>``.  Both mix in the hash of the ``hash`` name.
_METHODS_NAME = re.compile(r"<attrs generated (?:methods|__hash__) (.*?)(?:-\d+)?>")
#: The builtin, also while :func:`_import_attrs` has put its stand-in there.
_BUILTIN_COMPILE = builtins.compile
#: The ``__future__`` features' compiler flags: what ``compile`` inherits
#: from the code that calls it (``nested_scopes``' is an obsolete code flag).
_FUTURE_FLAGS = (
    functools.reduce(
        operator.or_,
        (getattr(__future__, name).compiler_flag for name in __future__.all_feature_names),
        0,
    )
    & ~__future__.nested_scopes.compiler_flag
)
#: Stands in for the type hash in the stored code.
_STAND_IN = 0x5C4E_AC00_0000_0001


def _type_hash(filename: str) -> int | None:
    """The number attrs mixes into the ``__hash__`` of the class it compiles
    ``filename`` for (the string hash of the name it gives that method)."""
    match = _METHODS_NAME.fullmatch(filename)
    return None if match is None else hash(f"<attrs generated hash {match[1]}>")


class CodeCache:
    """``compile`` for attrs' generated sources, backed by the dict stored at ``path``."""

    def __init__(self, path: Path, flags: int) -> None:
        self.path = path
        #: The ``__future__`` flags attrs' own ``compile`` calls inherit from its module.
        self._flags = flags
        #: Each entry marshalled on its own: a run unmarshals only the classes
        #: it defines (``-t python`` needs a fraction of ``-t all``'s), and
        #: reads only those (Note [Stored code read by entry]).
        self._stored = _Store.open(path)
        #: The digests this run looked up and found.
        self._used: set[str] = set()
        #: What this run compiled anew, marshalled.
        self._new: dict[str, bytes] = {}
        self.added = 0

    def compile(self, source: Any, filename: Any, mode: str, *args: Any, **kwargs: Any) -> Any:
        """Like the builtin (attrs calls ``compile(script, filename, "exec")``)."""
        if args or kwargs or not isinstance(source, str) or not isinstance(filename, str):
            return _BUILTIN_COMPILE(source, filename, mode, *args, **kwargs)
        return self.compile_with(source, filename, mode, self._flags)

    def compile_with(self, source: str, filename: str, mode: str, flags: int) -> Any:
        """``compile(source, filename, mode, flags, dont_inherit=True)``, from the cache."""
        number = _type_hash(filename)
        if number is not None:
            occurrences = source.count(str(number))
            if occurrences > 1:  # not only the constant: no shortcut
                return _BUILTIN_COMPILE(source, filename, mode, flags, True)
            if not occurrences:
                number = None  # a class without a generated __hash__
        normal = source if number is None else source.replace(str(number), str(_STAND_IN))
        text = f"{mode}\0{flags}\0{filename}\0{normal}"
        digest = hex_of(text.encode())
        code = _code(self._stored.get(digest))
        if code is None:
            code = _BUILTIN_COMPILE(normal, filename, mode, flags, True)
            self._new[digest] = marshal.dumps(code)
            self.added += 1
        else:
            self._used.add(digest)
        if number is None:
            return code
        restored, found = _put_back(code, {_STAND_IN: number})
        if found != 1:  # the text was not a constant after all
            return _BUILTIN_COMPILE(source, filename, mode, flags, True)
        return restored

    def save(self) -> None:
        """Store what was compiled anew (nothing if every lookup hit); errors are ignored."""
        if not self.added:
            return
        stored = self._stored
        keep = stored.digests()
        if len(keep) + len(self._new) > _MAX_ENTRIES:
            keep = [digest for digest in keep if digest in self._used]
        entries = {digest: stored.get(digest) for digest in keep}
        written = {k: v for k, v in entries.items() if v is not None}
        store(self.path, _pack({**written, **self._new}))


# Note [Stored code read by entry]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# The store holds the code of every class some run defined (~340 entries,
# ~0.8 MB on torch's -t all), and a run defines a part of them.  Read whole
# into one dict, every entry's bytes stayed in memory for the whole run, in
# both processes of a split compile, where they were part of the peak of -t
# headers (~0.8 MiB).  So the file is an index (digest -> offset and size,
# marshalled, after its own size) followed by the entries, and an entry is
# read with ``os.pread`` when its class is defined: only the index (~340
# digests) stays in memory.  The file stays open for the run (a forked child
# shares the descriptor; ``pread`` moves no file position); a save replaces
# it by a rename, so a reader's open file never changes under it.


class _Store:
    """The entries of a store file: its index in memory, each entry read when asked."""

    def __init__(self, handle: int | None, base: int, index: dict[str, tuple[int, int]]) -> None:
        self._handle = handle
        self._base = base
        self._index = index

    @classmethod
    def open(cls, path: Path) -> _Store:
        """The store at ``path``; an empty one if it is missing or not a store."""
        try:
            handle = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
        except OSError:
            return cls(None, 0, {})
        index = None
        try:
            total = os.fstat(handle).st_size
            size = int.from_bytes(os.pread(handle, 8, 0), "little")
            # Not a store (or a truncated one) when the index would not fit.
            if 0 < size <= total - 8:
                index = marshal.loads(os.pread(handle, size, 8))
        except (OSError, ValueError, EOFError, TypeError):
            index = None
        if not _is_index(index, total - 8 - size):
            os.close(handle)
            return cls(None, 0, {})
        return cls(handle, 8 + size, index)

    def __del__(self, _close: Any = os.close) -> None:
        # A command ends in os._exit with it open; a caller of CodeCache closes it
        # here (``_close`` bound early: module globals may be gone at shutdown).
        if self._handle is not None:
            _close(self._handle)

    def digests(self) -> list[str]:
        return list(self._index)

    def get(self, digest: str) -> bytes | None:
        found = self._index.get(digest)
        if found is None or self._handle is None:
            return None
        offset, size = found
        try:
            data = os.pread(self._handle, size, self._base + offset)
        except OSError:
            return None
        return data if len(data) == size else None


def _is_index(value: object, room: int) -> TypeGuard[dict[str, tuple[int, int]]]:
    """Whether ``value`` is an index of entries within ``room`` bytes."""
    if not isinstance(value, dict):
        return False
    return all(
        isinstance(k, str)
        and isinstance(v, tuple)
        and len(v) == 2
        and type(v[0]) is int
        and type(v[1]) is int
        and v[0] >= 0
        and v[1] >= 0
        and v[0] + v[1] <= room
        for k, v in value.items()
    )


def _pack(entries: dict[str, bytes]) -> bytes:
    """A store file of ``entries``: the index's size, the index, the entries."""
    index: dict[str, tuple[int, int]] = {}
    offset = 0
    for digest, data in entries.items():
        index[digest] = (offset, len(data))
        offset += len(data)
    head = marshal.dumps(index)
    return b"".join([len(head).to_bytes(8, "little"), head, *entries.values()])


def _put_back(code: types.CodeType, values: dict[int, int]) -> tuple[types.CodeType, int]:
    """``code`` with each integer constant in ``values`` replaced, in nested code
    and in constant tuples too; and how many constants were replaced.

    Tuples: the compiler folds ``hash((NUMBER,))``, the ``__hash__`` of a class
    without fields, into one tuple constant (5 such classes in a ``-t all``
    compile were compiled afresh every run before tuples were searched).
    """
    found = 0
    consts: list[object] = []
    # Types tested inline: this walks every constant of ~270 classes' methods.
    for constant in code.co_consts:
        kind = type(constant)
        if kind is int:
            if constant in values:
                constant = values[constant]
                found += 1
        elif kind is types.CodeType:
            constant, inner = _put_back(constant, values)
            found += inner
        elif kind is tuple:
            constant, inner = _in_tuple(constant, values)
            found += inner
        consts.append(constant)
    if not found:
        return code, 0
    return code.replace(co_consts=tuple(consts)), found


def _in_tuple(constant: tuple[object, ...], values: dict[int, int]) -> tuple[object, int]:
    found = 0
    items: list[object] = []
    for item in constant:
        if type(item) is int and item in values:
            item = values[item]
            found += 1
        elif type(item) is tuple:
            item, inner = _in_tuple(item, values)
            found += inner
        items.append(item)
    return (tuple(items), found) if found else (constant, 0)


def _code(data: bytes | None) -> types.CodeType | None:
    if data is None:
        return None
    try:
        code = marshal.loads(data)
    except (ValueError, EOFError, TypeError):
        return None
    return code if isinstance(code, types.CodeType) else None


def install() -> CodeCache | None:
    """Make attrs compile through a :class:`CodeCache`; None if it cannot or should not.

    When attrs is not imported yet, it is imported here with its own ~30
    classes' methods compiled through the cache too (:func:`_import_attrs`).
    """
    maker: Any = sys.modules.get("attr._make")
    if maker is not None and (not hasattr(maker, "_compile_and_eval") or "compile" in vars(maker)):
        return None  # another attrs layout, or already installed
    directory = cache_subdir("attrs")
    if directory is None:
        return None
    # Which attrs: its code generator's file, not ``attr.__version__``, which
    # imports importlib.metadata (25 ms) to find out.
    source = getattr(maker, "__file__", None) if maker is not None else _make_file()
    if not isinstance(source, str):
        return None
    try:
        made = os.stat(source)
    except OSError:
        return None
    which = f"{source}\0{made.st_size}\0{made.st_mtime_ns}"
    path = directory / f"{content_key([_FORMAT, which, sys.version])}.marshal"
    cache = CodeCache(path, 0)
    if maker is None:
        try:
            maker = _import_attrs(cache)
        except ImportError:  # pragma: no cover - attrs is a dependency
            return None
        if maker.__file__ != source or not hasattr(maker, "_compile_and_eval"):
            return None  # not the file the cache is named by, or another attrs layout
    # attrs' module may use ``from __future__ import annotations``; its compile
    # calls inherit that, so the cache's must pass it on explicitly.
    if vars(maker).get("annotations") is __future__.annotations:
        cache._flags |= __future__.annotations.compiler_flag
    maker.compile = cache.compile
    return cache


def _make_file() -> str | None:
    """Where ``attr/_make.py`` is, found without importing attrs."""
    import importlib.util

    try:
        spec = importlib.util.find_spec("attr")
    except (ImportError, ValueError):
        return None
    if spec is None or not isinstance(spec.origin, str):
        return None
    return os.path.join(os.path.dirname(spec.origin), "_make.py")


def _import_attrs(cache: CodeCache) -> Any:
    """``import attr._make``, attrs' own generated methods compiled through ``cache``.

    attrs defines classes of its own while it is imported (validators,
    converters, ``Attribute``...), before ``attr._make.compile`` can be set:
    ~30 compiles of every run.  Their calls find ``compile`` in the builtins,
    so for the length of the import the builtin is replaced by a stand-in
    that sends attrs' generated sources to the cache and everything else to
    the builtin, with the same arguments.  A ``compile`` that inherits its
    caller's ``__future__`` flags gets them from that caller's code, as the
    builtin would have (the stand-in's own would be wrong).
    """

    def compile_while_importing(
        source: Any,
        filename: Any,
        mode: str,
        flags: int = 0,
        dont_inherit: bool = False,
        optimize: int = -1,
        **kwargs: Any,
    ) -> Any:
        if not dont_inherit:
            flags |= sys._getframe(1).f_code.co_flags & _FUTURE_FLAGS
        if (
            type(source) is str
            and type(filename) is str
            and filename.startswith("<attrs generated ")
            and not flags & ~_FUTURE_FLAGS
            and optimize == -1
            and not kwargs
        ):
            return cache.compile_with(source, filename, mode, flags)
        return _BUILTIN_COMPILE(source, filename, mode, flags, True, optimize, **kwargs)

    builtins.compile = compile_while_importing
    try:
        import attr._make as maker
    finally:
        builtins.compile = _BUILTIN_COMPILE
    return maker
