"""The run key: everything besides the files read that a compile's output depends on.

Note [Up-to-date check] in :mod:`schemac.rebuild` says why each piece is here.
Computed both by the full compile (which stores it) and by the no-op check
(which compares it), from the raw command line: the check never parses the
options, so an option added to ``schemac compile`` tomorrow is part of the key
without anyone remembering to add it.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import sys

from schemac.version import version

# Not typing.TYPE_CHECKING: see schemac/__init__.py.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

#: Bumped whenever what the key covers or the state's layout changes.
STATE_FORMAT = "schemac-state 3"

#: Libraries whose code shapes the output (parsing, IR, templates, YAML).
_LIBRARIES = ("lark", "attr", "mako", "yaml")

#: The package whose files make up "schemac's code".
PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))


def code_digest(package: str = PACKAGE_DIR) -> str:
    """SHA-256 over every file of the schemac package (sources, templates, grammar, data).

    Content, not times: a checkout of another branch rewrites files with new
    times but may restore old bytes, and an edited template must count even if
    its mtime was preserved.  About 10 ms for the ~1.5 MB package.
    """
    digest = hashlib.sha256()
    for root, dirs, files in os.walk(package):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(files):
            if name.endswith((".pyc", ".pyo")):
                continue
            path = os.path.join(root, name)
            relative = os.path.relpath(path, package).encode("utf-8", "surrogateescape")
            with open(path, "rb") as stream:
                data = stream.read()
            digest.update(len(relative).to_bytes(4, "little") + relative)
            digest.update(len(data).to_bytes(8, "little") + data)
    return digest.hexdigest()


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
        "\0".join(["argv", *argv]),
    ]
    digest = hashlib.sha256()
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
