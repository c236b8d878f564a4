"""The run key: everything besides the files read that a compile's output depends on.

Note [Up-to-date check] in :mod:`schemac.rebuild` says why each piece is here.
Computed both by the full compile (which stores it) and by the no-op check
(which compares it), from the raw command line: the check never parses the
options, so an option added to ``schemac compile`` tomorrow is part of the key
without anyone remembering to add it.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import sys
import time

from schemac.digests import INTERNAL, hasher
from schemac.version import version

# Not typing.TYPE_CHECKING: see schemac/__init__.py.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

#: Bumped whenever what the key covers or the state's layout changes.
STATE_FORMAT = "schemac-state 7"

#: Libraries whose code shapes the output (parsing, IR, templates, YAML).
_LIBRARIES = ("lark", "attr", "mako", "yaml")

#: The package whose files make up "schemac's code".
PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))


def code_digest(package: str = PACKAGE_DIR) -> str:
    """The digest over every file of the schemac package (sources, templates, grammar, data).

    Content, not times: a checkout of another branch rewrites files with new
    times but may restore old bytes, and an edited template must count even if
    its mtime was preserved.  Reading and hashing the ~1.5 MB package is 7-10 ms
    of every compile and every no-op check, so the digest is remembered under
    schemac's cache directory against the files' ``stat`` (Note [Code digest
    by stat]), which costs a third of that.
    """
    paths = _package_files(package)
    memo = _memo_path(package, paths)
    if memo is not None:
        try:
            with open(memo, encoding="ascii") as stream:
                remembered = stream.read()
        except (OSError, ValueError):
            remembered = ""
        if len(remembered) == 64 and not remembered.strip(_HEX):
            return remembered
    digest = hasher()
    for relative, path, _ in paths:
        with open(path, "rb") as stream:
            data = stream.read()
        digest.update(len(relative).to_bytes(4, "little") + relative)
        digest.update(len(data).to_bytes(8, "little") + data)
    result = digest.hexdigest()
    if memo is not None and _settled(paths):
        _write_memo(memo, result)
    return result


# Note [Code digest by stat]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~
# The content digest of the package is a pure function of its files' bytes,
# and a file's bytes cannot change without changing its size, mtime, ctime or
# inode: ctime cannot be set from user space, so even a tool that restores the
# mtime after writing is seen (the state's output check, Note [Up-to-date
# check], relies on the same).  So the digest is stored in a file named by a
# hash of every file's relative path, size, mtime, ctime and inode (and the
# package's path): a listing that matches gives the digest without reading a
# byte; any edit, added or removed file gives another name, and the files are
# read and hashed as before.  The exception is git's "racy" file: one written
# in the clock tick of the ``stat`` could change again without changing its
# times.  A digest is therefore stored only when every file's times are at
# least _SETTLED_NS old; a package edited a moment ago is hashed in full
# until it settles.  With SCHEMAC_NO_CACHE set, or no writable cache
# directory, nothing is stored and the package is always hashed.

#: How old every file's mtime and ctime must be before a digest is stored
#: (file times come from a coarse clock, and some file systems keep seconds).
_SETTLED_NS = 3_000_000_000

_HEX = "0123456789abcdef"

#: (relative path as bytes, path, stat) of each file :func:`code_digest` hashes, in order.
_Files = list[tuple[bytes, str, os.stat_result]]


def _package_files(package: str) -> _Files:
    found: _Files = []
    package = os.path.normpath(package)
    for root, dirs, files in os.walk(package):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        # os.path.relpath, without its two abspath calls per file.
        inside = root[len(package) + 1 :]
        for name in sorted(files):
            if name.endswith((".pyc", ".pyo")):
                continue
            relative = os.path.join(inside, name) if inside else name
            path = os.path.join(root, name)
            found.append((os.fsencode(relative), path, os.stat(path)))
    return found


def cache_root() -> str:
    """Where :mod:`schemac.cachedir` keeps its files (found without importing it:
    this package stays on the standard library)."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(os.path.abspath(base), "schemac")


def _memo_path(package: str, paths: _Files) -> str | None:
    """The file that holds the digest of ``package`` as ``paths`` list it; None without a cache."""
    if os.environ.get("SCHEMAC_NO_CACHE"):
        return None
    # The algorithm too: a memo holds a digest of the package made with it.
    listing = hasher(f"{INTERNAL}\0".encode() + os.fsencode(package) + b"\0")
    for relative, _, info in paths:
        listing.update(
            b"%b\0%d\0%d\0%d\0%d\n"
            % (relative, info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino)
        )
    return os.path.join(cache_root(), "code", listing.hexdigest()[:32])


def _settled(paths: _Files) -> bool:
    newest = max((max(i.st_mtime_ns, i.st_ctime_ns) for _, _, i in paths), default=0)
    return time.time_ns() - newest >= _SETTLED_NS


def _write_memo(memo: str, digest: str) -> None:
    """Store ``digest`` at ``memo`` atomically; a cache that cannot be written is no error."""
    temporary = f"{memo}.{os.getpid()}.tmp"
    try:
        os.makedirs(os.path.dirname(memo), mode=0o700, exist_ok=True)
        with open(temporary, "w", encoding="ascii") as stream:
            stream.write(digest)
        os.replace(temporary, memo)
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(temporary)


def _module_location(name: str) -> str:
    """Where ``import name`` would load from, and that file's size and mtime.

    Found without importing it.  A reinstall or upgrade rewrites the file, so
    its times change even when the version number does not.
    """
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        spec = None
    if spec is None or spec.origin is None:
        return f"{name}=-"
    try:
        info = os.stat(spec.origin)
    except OSError:
        return f"{name}={spec.origin}"
    return f"{name}={spec.origin}:{info.st_size}:{info.st_mtime_ns}"


#: Options of ``compile`` that change how it runs, never what it writes or
#: records: the run key leaves them out, so that ``-j 1`` after ``-j 2``, or a
#: run with ``--time-passes``, is a no-op or a re-run over OUT, not a cold run.
_HOW_FLAGS = frozenset({"--time-passes"})
_HOW_WITH_VALUE = frozenset({"-j", "--jobs"})


def keyed_words(argv: Sequence[str]) -> list[str]:
    """``argv`` without the options that only say how to run (:data:`_HOW_FLAGS`,
    ``-j N``).  Only their exact spellings are left out (an abbreviation keys
    as written: a cold run, never a wrong one), and nothing after ``--``."""
    words: list[str] = []
    rest = iter(argv)
    for word in rest:
        if word == "--":
            words.append(word)
            words.extend(rest)
        elif word in _HOW_WITH_VALUE:
            next(rest, None)
        elif not (
            word in _HOW_FLAGS
            or word.startswith("--jobs=")
            or (word.startswith("-j") and word[2:].isdigit())
        ):
            words.append(word)
    return words


def run_key(argv: Sequence[str], cwd: str | None = None) -> str:
    """The key of a compile run with command line ``argv`` (after ``schemac``) in ``cwd``."""
    pieces = [
        STATE_FORMAT,
        version(),
        code_digest(),
        sys.version,
        sys.executable,
        # --torch reads the YAML of the torch found here; the files it read
        # are checked separately, this catches a different torch on the path.
        _module_location("torchgen"),
        *(_module_location(name) for name in _LIBRARIES),
        os.path.abspath(cwd if cwd is not None else os.getcwd()),
        "\0".join(["argv", *keyed_words(argv)]),
    ]
    digest = hasher()
    for piece in pieces:
        data = piece.encode("utf-8", "surrogateescape")
        digest.update(len(data).to_bytes(8, "little") + data)
    return digest.hexdigest()


#: (working directory, *argv) -> run key, while :class:`OneCommand` lasts.
_REMEMBERED: dict[tuple[str, ...], str] = {}
_ONE_COMMAND: list[bool] = []


class OneCommand:
    """While one ``schemac`` command runs, :func:`command_run_key` computes each key once.

    The no-op check and, when it fails, the compile's record both need the
    run key of the same command line; computing it hashes schemac's whole
    package (~10 ms).  :func:`schemac.launcher.main` runs the command inside
    this context, so the record reuses the key the check made a few
    milliseconds earlier: the key is still taken before the compile reads
    anything.  Outside it (tests and other importers calling the CLI
    directly, maybe after editing schemac's files) every call computes the key
    afresh, and leaving it forgets every key: a long-lived process never
    carries one from command to command.
    """

    def __enter__(self) -> None:
        _ONE_COMMAND.append(True)

    def __exit__(self, *exc: object) -> None:
        _ONE_COMMAND.pop()
        if not _ONE_COMMAND:
            _REMEMBERED.clear()


def command_run_key(argv: Sequence[str]) -> str:
    """:func:`run_key` of ``argv`` in the working directory, once per :class:`OneCommand`."""
    if not _ONE_COMMAND:
        return run_key(argv)
    words = (os.path.abspath(os.getcwd()), *argv)
    key = _REMEMBERED.get(words)
    if key is None:
        key = _REMEMBERED[words] = run_key(argv)
    return key
