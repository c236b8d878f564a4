"""Operator names: ``ns::base_name.overload``.

The base name carries meaning that the rest of the compiler needs: a trailing
``_`` marks an in-place operator (``add_``), ``__iadd__``-style dunders are
in-place too, and a ``_functional`` suffix marks the functional twin of a
mutable operator.  These are decoded once here, so no later stage re-derives
them from strings.
"""

from __future__ import annotations

import attrs

from schemac.ir.slots import Views

#: Dunder names whose ``__iX__`` form is an in-place operator (PEP 203).
AUGMENTED_ASSIGNMENT_NAMES = frozenset(
    {"add", "sub", "mul", "div", "mod", "pow", "lshift", "rshift", "and", "xor", "or"}
)

FUNCTIONAL_SUFFIX = "_functional"


class _BaseNameViews(Views):
    """Slots of a base name's spellings (Note [IR classes without __getattr__])."""

    __slots__ = ("_text", "unqualified")
    _text: str
    #: ``str()`` without the namespace: ``add_``, ``__iand__``.
    unqualified: str


# Hashes cached: names key most of the dicts passes build (~40,000 lookups per compile).
@attrs.frozen(cache_hash=True)
class BaseOperatorName(_BaseNameViews):
    """The operator name without its overload, e.g. ``add_`` or ``__iand__``."""

    base: str
    inplace: bool = False
    dunder: bool = False
    #: See docs/yaml-format.md, "functional twins of mutable operators".
    functional_overload: bool = False
    namespace: str | None = None

    def __attrs_post_init__(self) -> None:
        # Spelled once, when made: the parser shares name objects, and passes
        # and backends print them ~35,000 times per compile of torch's files.
        unqualified = self._spell_unqualified()
        object.__setattr__(self, "unqualified", unqualified)
        object.__setattr__(self, "_text", self._qualify(unqualified))

    def __str__(self) -> str:
        return self._text

    def _qualify(self, unqualified: str) -> str:
        return f"{self.namespace}::{unqualified}" if self.namespace else unqualified

    def _spell_unqualified(self) -> str:
        if self.dunder:
            return f"__{'i' if self.inplace else ''}{self.base}__"
        if self.inplace:
            return f"{self.base}_"
        if self.functional_overload:
            return f"{self.base}{FUNCTIONAL_SUFFIX}"
        return self.base

    def without_inplace(self) -> BaseOperatorName:
        if not self.inplace and not self.functional_overload:
            # Already plain: this very (immutable) name, whose hash and text
            # are then computed once for both.
            return self
        return BaseOperatorName(self.base, False, self.dunder, False, self.namespace)


class _NameViews(Views):
    """The slot of a name's spelling (Note [IR classes without __getattr__])."""

    __slots__ = ("_text",)
    _text: str


@attrs.frozen(cache_hash=True)
class OperatorName(_NameViews):
    """A base name plus overload name; ``str()`` is ``name.overload`` or ``name``."""

    name: BaseOperatorName
    overload: str = ""

    def __attrs_post_init__(self) -> None:
        # As BaseOperatorName's: spelled when made.
        name = self.name._text
        object.__setattr__(self, "_text", f"{name}.{self.overload}" if self.overload else name)

    def __str__(self) -> str:
        return self._text

    @property
    def unambiguous_name(self) -> str:
        """``name_overload``: the C++ identifier that names one overload."""
        return f"{self.name}_{self.overload}" if self.overload else str(self.name)

    def without_inplace(self) -> OperatorName:
        return OperatorName(self.name.without_inplace(), self.overload)

    def with_overload(self, overload: str) -> OperatorName:
        return OperatorName(self.name.without_inplace(), overload)
