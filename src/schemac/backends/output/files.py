"""What a generated file is, and the set of files one compile produces.

A backend returns :class:`GeneratedFile` values; the driver adds them to one
:class:`OutputSet`.  The set is where two promises are kept, once for every
backend: a path is a plain relative path made of safe characters (so no YAML
name can make schemac write outside the output directory, or produce a name a
build system or a case-insensitive file system would trip on), and no path is
produced twice.  Problems are collected and raised together as an
:class:`OutputError` when the set is frozen, each pointing at the YAML entry
the file came from when the backend said which one that was.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Iterator
from pathlib import PurePosixPath

import attrs

from schemac.diagnostics import NO_SPAN, Diagnostic, SchemacError, Span, printable
from schemac.version import version as schemac_version

#: One path component: starts with a letter, digit or ``_`` and goes on with
#: those, ``.``, ``-`` or ``+``.  No spaces, quotes, ``$`` or ``\``: these need
#: escaping in Makefiles, CMake lists and shells.
_COMPONENT = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.+-]*")

#: A whole path of such components: what nearly every path is, checked in one match.
_PATH = re.compile(r"(?:[A-Za-z0-9_][A-Za-z0-9_.+-]*/)*[A-Za-z0-9_][A-Za-z0-9_.+-]*")

#: Longest path accepted; well under every file system's and Windows' limits.
_MAX_PATH_LENGTH = 200

#: Names the output machinery keeps for itself (see :mod:`.commit`).
RESERVED_NAMES = frozenset(
    {
        ".schemac-manifest",
        ".schemac-state",
        ".schemac-fragments",
        ".schemac-fragments-tail",
        ".schemac-parts",
    }
)


class OutputError(SchemacError):
    """A backend produced a bad path, or two files with the same path."""


@attrs.frozen
class GeneratedFile:
    """One output file: a path relative to the output directory, and its text.

    ``target`` is the ``-t`` target whose run produced the file and
    ``backend`` the registry entry that made it (the driver stamps both); the
    manifest records the target so that a later run of that target knows which
    files are its own, and OUT's state records both so that a later run can
    keep one backend's files (Note [Unit reuse]).  ``span`` is the YAML entry
    the file's *path* derives from (a per-operator header, say), for error
    reports.
    """

    path: str
    text: str
    target: str = ""
    span: Span = attrs.field(default=NO_SPAN, eq=False, repr=False)
    backend: str = ""

    @property
    def data(self) -> bytes:
        """The bytes written: UTF-8, ``\\n`` line ends on every platform."""
        return self.text.encode("utf-8")


def check_output_path(path: str) -> str | None:
    """Why ``path`` may not be an output path, or None if it may."""
    if len(path) <= _MAX_PATH_LENGTH and _PATH.fullmatch(path) and path not in RESERVED_NAMES:
        return None  # one regex match instead of one per component (7,700 paths a run)
    if not path:
        return "the path is empty"
    if len(path) > _MAX_PATH_LENGTH:
        return f"the path is longer than {_MAX_PATH_LENGTH} characters"
    if "\\" in path:
        return "the path contains '\\'; use '/' between directories"
    if path.startswith("/"):
        return "the path is absolute; output paths are relative to the output directory"
    for part in path.split("/"):
        if part in ("", ".", ".."):
            return f"the path has an empty, '.' or '..' component ({part!r})"
        if not _COMPONENT.fullmatch(part):
            return (
                f"the path component {part!r} has characters other than letters, digits,"
                " '_', '.', '-' and '+' (or starts with '.', '-' or '+')"
            )
    if path in RESERVED_NAMES:
        return f"{path!r} is reserved for schemac's own bookkeeping"
    return None


def _describe(file: GeneratedFile) -> str:
    return f"target '{file.target}'" if file.target else "a backend"


def _collision(file: GeneratedFile, first: GeneratedFile) -> Diagnostic:
    same = "the same path" if first.path == file.path else f"{first.path!r}"
    return Diagnostic(
        file.span,
        f"output {file.path!r} from {_describe(file)} collides with {same} from {_describe(first)}",
        hint="every output file must be produced exactly once; paths that differ"
        " only in case count as the same file",
    )


class OutputSet:
    """The files of one compile, keyed by path; a builder, frozen by :meth:`files`.

    Paths are compared case-insensitively for duplicates as well, because
    ``ops/Foo.h`` and ``ops/foo.h`` are one file on macOS and Windows.
    """

    def __init__(self) -> None:
        self._by_path: dict[str, GeneratedFile] = {}
        self._by_folded_path: dict[str, GeneratedFile] = {}
        self._problems: list[Diagnostic] = []
        #: The rank of each accepted file, by folded path.  Not its arrival: an
        #: accepted file arrived before every file that collides with it, which
        #: is all a collision's report needs (and a small int is no object of
        #: its own; a (rank, arrival) pair per file was ~0.8 MiB of -t headers).
        self._ranks: dict[str, int] = {}
        #: Per folded path met more than once, every (rank, arrival, file), the first included.
        self._collisions: dict[str, list[tuple[int, int, GeneratedFile]]] = {}
        self._arrivals = 0

    def add(self, file: GeneratedFile, rank: int = 0) -> bool:
        """Add ``file``; False if it was rejected (the problem is kept for :meth:`files`).

        ``rank``: where the file comes in a run in order (the position of the
        emit call that made it, Note [Split emission]).  A collision is told
        against the file of least rank, then earliest arrival, so when two
        processes add files in an order of their own the report is the one a
        run in order gives (:class:`~schemac.diagnostics.SchemacError` sorts
        the problems themselves)."""
        arrival = self._arrivals = self._arrivals + 1
        reason = check_output_path(file.path)
        if reason is not None:
            message = f"invalid output path {file.path!r} from {_describe(file)}: {reason}"
            self._problems.append(Diagnostic(file.span, message))
            return False
        folded = file.path.casefold()
        if folded == file.path:
            # The path's own string, not an equal copy: the three tables of
            # torch's -t headers hold 7,600 keys (~0.7 MiB of copies).
            folded = file.path
        earlier = self._by_folded_path.get(folded)
        if earlier is not None:
            first = (self._ranks[folded], 0, earlier)
            self._collisions.setdefault(folded, [first]).append((rank, arrival, file))
            return False
        self._by_path[file.path] = file
        self._by_folded_path[folded] = file
        self._ranks[folded] = rank
        return True

    def forget_text(self, path: str) -> None:
        """Keep only the path, target and span of ``path``'s file: its bytes are
        are staged now (Note [Texts handed over] in :mod:`schemac.backends.driver`)."""
        file = self._by_path[path]
        bare = GeneratedFile(file.path, "", file.target, file.span, file.backend)
        self._by_path[path] = bare
        self._by_folded_path[path.casefold()] = bare

    def add_all(self, files: Iterable[GeneratedFile]) -> None:
        for file in files:
            self.add(file)

    def __len__(self) -> int:
        return len(self._by_path)

    def __contains__(self, path: object) -> bool:
        return path in self._by_path

    def files(self) -> tuple[GeneratedFile, ...]:
        """Every file, sorted by path; raises :class:`OutputError` for any problem."""
        problems = list(self._problems)
        for group in self._collisions.values():
            (_, _, first), *others = sorted(group, key=lambda entry: entry[:2])
            problems += [_collision(file, first) for _, _, file in others]
        if problems:
            raise OutputError(problems)
        return tuple(self._by_path[path] for path in sorted(self._by_path))


@attrs.frozen
class Provenance:
    """What a generated file is made from: the input files and the target release.

    Iterates as the file names, so it goes wherever a list of sources does;
    a banner made from it also says which schemac, for which release.
    """

    files: tuple[str, ...]
    #: The PyTorch release the module was loaded for (Note [Release profiles]).
    release: str | None = None

    def __iter__(self) -> Iterator[str]:
        return iter(self.files)


def made_by(release: str | None) -> str:
    """``schemac 0.1.0 for torch 2.13``: the one spelling of who made an output,
    for which release (every banner and the manifest)."""
    who = f"schemac {schemac_version()}"
    return who if release is None else f"{who} for torch {release}"


def generated_banner(template: str, sources: Iterable[str], comment: str = "//") -> str:
    """The first lines of every generated file: who made it and from what.

    ``@generated`` marks the file for code-review tools and linters.  Only the
    base names of the sources appear, never their directories or a time stamp,
    so that the bytes do not depend on where or when schemac ran.  With a
    :class:`Provenance`, a line names schemac's version and the target release.
    """
    if isinstance(sources, Provenance):
        return _banner(template, sources.files, comment, made_by(sources.release))
    return _banner(template, tuple(sources), comment, None)


# Thousands of per-operator headers share a handful of banners.
@functools.lru_cache(maxsize=256)
def _banner(template: str, sources: tuple[str, ...], comment: str, maker: str | None) -> str:
    # A file name may hold a line break: escaped (Note [Diagnostics print no
    # control characters]), it cannot end the comment and start a line of code.
    names = [printable(PurePosixPath(s.replace("\\", "/")).name) for s in sources if s]
    lines = [f"{comment} @generated by schemac from {printable(template)}"]
    if names:
        lines.append(f"{comment} Sources: {', '.join(names)}")
    if maker is not None:
        lines.append(f"{comment} Made by {maker}.")
    lines.append(f"{comment} Do not edit: change the sources and run `schemac compile` again.")
    return "\n".join(lines)
