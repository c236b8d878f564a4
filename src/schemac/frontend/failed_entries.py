"""Which entries failed to load, so the passes can run on the rest without follow-on errors.

Note [Every error in one run]: a load error in one file must not hide the
errors the passes would find elsewhere (a derivative formula naming an unknown
input, a structured kernel without its family).  So the loader hands on what
loaded cleanly beside its diagnostics, and the caller runs the passes on that.
An entry with an error is left out *with its whole family* (every operator of
its base name: ``foo``, ``foo_``, ``foo.out``, ``_foo_functional``; for a
view's twin ``foo_copy``, the view ``foo`` too) and with
the derivative entries of that family: the passes would otherwise report the
family's missing member, a delegate that does not exist or a derivative for
no operator, each a consequence of the error already shown.  An in-place or
mutable variant whose schema parsed is left out alone: nothing refers to it.  A failed tag
definition is likewise taken as known, so entries that use it are not told
it is unknown.

When a failed entry's name cannot be read at all (its ``func`` is not a
string, a list item is not a mapping, the YAML does not parse), nothing tells
what depends on it, and the passes do not run.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable, Iterator, Sequence
from collections.abc import Set as AbstractSet

from schemac.diagnostics import Diagnostic
from schemac.ir.names import FUNCTIONAL_SUFFIX, OperatorName
from schemac.ir.native import NativeFunction
from schemac.ir.schema import SchemaKind

# The name before the argument list of a schema that did not parse:
# ``ns::name.overload(`` (the namespace and overload are optional).
_LEADING_NAME = re.compile(r"\s*(?:\w+::)?(\w+)(?:\.\w*)?\s*\(")
_DUNDER = re.compile(r"__(\w+)__")
_COPY_SUFFIX = "_copy"
#: Variants nothing else refers to (Note [Every error in one run]).
_LEAF_KINDS = frozenset({SchemaKind.inplace, SchemaKind.mutable})


def family_base(name: OperatorName) -> str:
    """The family an operator belongs to: its base name (``foo`` for ``foo_.out``)."""
    return name.name.base


def family_bases_of_text(text: str) -> tuple[str, ...]:
    """The families a schema text that did not parse may belong to ((): unreadable)."""
    match = _LEADING_NAME.match(text)
    if match is None:
        return ()
    name = match.group(1)
    dunder = _DUNDER.fullmatch(name)
    if dunder is not None:
        # ``__iadd__`` is in ``add``'s family, ``__ior__``... too: both spellings.
        inner = dunder.group(1)
        return (inner, inner[1:]) if inner.startswith("i") else (inner,)
    base = name[:-1] if name.endswith("_") else name
    if base.endswith(FUNCTIONAL_SUFFIX):
        base = base[: -len(FUNCTIONAL_SUFFIX)]
    return (base,) if base else ()


class FailedEntries:
    """The families and tags with an entry that failed to load, gathered during one load."""

    def __init__(self) -> None:
        self.families: set[str] = set()
        #: Operators left out alone (:meth:`add_function`).
        self.names: set[OperatorName] = set()
        self.tags: set[str] = set()
        #: An entry failed whose name could not be read: what depends on it is unknown.
        self.unnamed = False
        #: A tag definition failed whose name could not be read: any tag may be defined.
        self.unnamed_tag = False

    def snapshot(self) -> FailedEntries:
        """A copy of what is known now, for :meth:`restore`."""
        copy = FailedEntries()
        copy.restore(self)
        return copy

    def restore(self, snapshot: FailedEntries) -> None:
        """Know again only what ``snapshot`` knew."""
        self.families = set(snapshot.families)
        self.names = set(snapshot.names)
        self.tags = set(snapshot.tags)
        self.unnamed = snapshot.unnamed
        self.unnamed_tag = snapshot.unnamed_tag

    def add_schema_text(self, text: str | None) -> None:
        bases = family_bases_of_text(text) if text is not None else ()
        if not bases:
            self.unnamed = True
        for base in bases:
            self._add_family(base)

    def _add_family(self, base: str) -> None:
        self.families.add(base)
        # A view's non-aliasing twin (``foo_copy``, tagged view_copy) is part
        # of the view's family for the passes: without it, ``foo`` "has no twin".
        if base.endswith(_COPY_SUFFIX) and len(base) > len(_COPY_SUFFIX):
            self.families.add(base[: -len(_COPY_SUFFIX)])

    def add_functions_with_errors(
        self, functions: Sequence[NativeFunction], errors: Iterable[Diagnostic], file: str
    ) -> None:
        """Quarantine the family of every function whose entry holds one of ``errors``."""
        spans = sorted((f.span.line, f.span.end_line, i) for i, f in enumerate(functions))
        starts = [start for start, _, _ in spans]
        for error in errors:
            if error.span.file != file:
                continue
            at = bisect.bisect_right(starts, error.span.line) - 1
            if at >= 0 and spans[at][1] >= error.span.line:
                self.add_function(functions[spans[at][2]])

    def add_function(self, function: NativeFunction) -> None:
        """Leave out ``function``'s family; or only itself, if nothing depends on it.

        An in-place or mutable variant is no other entry's delegate, its
        family's anchor nor a derivative entry's operator: without it the
        family stays whole, so the passes still check its other members.
        """
        if function.func.kind() in _LEAF_KINDS:
            self.names.add(function.func.name)
        else:
            self._add_family(family_base(function.func.name))

    def is_failed(self, name: OperatorName) -> bool:
        return name in self.names or family_base(name) in self.families

    def without_failed(self, functions: Sequence[NativeFunction]) -> tuple[NativeFunction, ...]:
        """``functions`` less the failed families.

        An entry keeps a tag whose definition failed: it meant that tag, and
        the passes read tags (``view_copy``, ``inplace_view``) by name.
        """
        return tuple(f for f in functions if not self.is_failed(f.func.name))


class KnownTags(AbstractSet[str]):
    """The tags entries may use: those defined, and those a failed definition may have meant.

    A use of a tag whose definition failed (``- tag: fast-path``), or whose
    closest spelling is one (``nondeterministic_seeded`` beside the failed
    ``nondeterministic_seeded-x``), is not reported again as unknown (and is
    recorded in ``failed.tags``).  Iterating gives the defined tags (the
    did-you-mean candidates).
    """

    def __init__(self, defined: frozenset[str], failed: FailedEntries) -> None:
        self._defined = defined
        self._failed = failed
        self._broken = frozenset(failed.tags)

    def __contains__(self, tag: object) -> bool:
        if not isinstance(tag, str):
            return False
        if tag in self._defined or tag in self._failed.tags:
            return True
        if not self._broken:
            return False
        import difflib  # only when some tag failed to load: not on every load's import path

        closest = difflib.get_close_matches(tag, [*self._defined, *self._broken], n=1, cutoff=0.6)
        if closest and closest[0] in self._broken:
            self._failed.tags.add(tag)
            return True
        return False

    def __iter__(self) -> Iterator[str]:
        return iter(sorted(self._defined))

    def __len__(self) -> int:
        return len(self._defined)
