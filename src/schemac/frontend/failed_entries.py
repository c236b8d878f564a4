"""Which entries failed to load, so the passes can run on the rest without follow-on errors.

Note [Every error in one run]: a load error in one file must not hide the
errors the passes would find elsewhere (a derivative formula naming an unknown
input, a structured kernel without its family).  So the loader hands on what
loaded cleanly beside its diagnostics, and the caller runs the passes on that.
An entry with an error is left out *with its whole family* (every operator of
its base name: ``foo``, ``foo_``, ``foo.out``, ``_foo_functional``) and with
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
from collections.abc import Iterable, Sequence

import attrs

from schemac.diagnostics import Diagnostic
from schemac.ir.names import FUNCTIONAL_SUFFIX, OperatorName
from schemac.ir.native import NativeFunction
from schemac.ir.schema import SchemaKind

# The name before the argument list of a schema that did not parse:
# ``ns::name.overload(`` (the namespace and overload are optional).
_LEADING_NAME = re.compile(r"\s*(?:\w+::)?(\w+)(?:\.\w*)?\s*\(")
_DUNDER = re.compile(r"__(\w+)__")
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

    def add_schema_text(self, text: str | None) -> None:
        bases = family_bases_of_text(text) if text is not None else ()
        if not bases:
            self.unnamed = True
        self.families.update(bases)

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
            self.families.add(family_base(function.func.name))

    def is_failed(self, name: OperatorName) -> bool:
        return name in self.names or family_base(name) in self.families

    def without_failed(self, functions: Sequence[NativeFunction]) -> tuple[NativeFunction, ...]:
        """``functions`` less the failed families, and less the failed tags they carry."""
        kept: list[NativeFunction] = []
        for f in functions:
            if self.is_failed(f.func.name):
                continue
            if self.tags and self.tags.intersection(f.tags):
                f = attrs.evolve(f, tags=tuple(t for t in f.tags if t not in self.tags))
            kept.append(f)
        return tuple(kept)
