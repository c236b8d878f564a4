"""The unit every pass transforms and every backend reads.

A :class:`Module` holds everything loaded from one operator library (its
native functions, tag definitions, derivative entries and deprecated Python
signatures) plus what the passes derive from them.  It is immutable: a pass
returns a new module (``attrs.evolve``), so the IR after every pass can be kept,
dumped and compared.

Derived fields start empty and are filled by the pass that provides them (see
docs/passes.md): ``resolutions`` by ``resolve-dispatch``, ``grouped_functions``
by ``group-variants``, ``grouped_views`` by ``group-views``.
"""

from __future__ import annotations

import functools
from typing import Any

import attrs

from schemac.ir.autograd import AutogradTable
from schemac.ir.derivatives import DeprecatedSignature, DerivativeEntry
from schemac.ir.external_backend import ExternalBackend
from schemac.ir.frozen import FrozenMap
from schemac.ir.groups import Grouped, VariantGroup, ViewGroup, ViewGrouped
from schemac.ir.host import HostTemplates
from schemac.ir.names import OperatorName
from schemac.ir.native import NativeFunction
from schemac.ir.resolved import Resolution
from schemac.ir.selection import SelectionResult
from schemac.ir.tags import TagDefinition


@attrs.frozen
class SourceFiles:
    """Which files the module was loaded from (for headers and depfiles)."""

    native_functions: str
    tags: str | None = None
    derivatives: str | None = None
    deprecated: str | None = None


def _index_functions(functions: tuple[NativeFunction, ...]) -> dict[OperatorName, NativeFunction]:
    # First one wins; duplicates are a verifier error, not something to hide here.
    index: dict[OperatorName, NativeFunction] = {}
    for f in functions:
        index.setdefault(f.func.name, f)
    return index


@attrs.frozen(slots=False)
class Module:
    sources: SourceFiles
    functions: tuple[NativeFunction, ...] = ()
    tags: tuple[TagDefinition, ...] = ()
    derivatives: tuple[DerivativeEntry, ...] = ()
    deprecated: tuple[DeprecatedSignature, ...] = ()
    #: Resolved dispatch table and derived flags of every function, by name.
    resolutions: FrozenMap[OperatorName, Resolution] = attrs.field(factory=FrozenMap)
    #: Every function once, grouped into variant families, in the reference's order.
    grouped_functions: tuple[Grouped, ...] = ()
    #: Every function once, view families grouped, in the reference's order.
    grouped_views: tuple[ViewGrouped, ...] = ()
    #: Derivative information per function; filled by ``match-derivatives``.
    autograd: AutogradTable = attrs.field(factory=AutogradTable)
    #: The operator selection applied by ``selective-build``, if any.
    selection: SelectionResult | None = None
    #: An out-of-tree backend's YAML (``compile --backend``), if one was given.
    external_backend: ExternalBackend | None = None
    #: The host release's hand-written template text (schemac.ir.host), if given.
    host_templates: HostTemplates | None = None
    #: The PyTorch release the module was loaded for (``"2.13"``, ``"generic"``;
    #: Note [Release profiles]); None for a module built by hand.
    release: str | None = None

    # The name index is a plain attribute, not a field (hence no slots): the
    # generic IR printer walks the fields and must not print it.  It is built
    # on first use: every pass returns a new module, and most never look a
    # function up by name.
    @functools.cached_property
    def _by_name(self) -> dict[OperatorName, NativeFunction]:
        return _index_functions(self.functions)

    def evolve(self, **changes: Any) -> Module:
        """``attrs.evolve``, keeping the name index if the functions stay the same.

        Passes that only add derived facts return a new module; building its
        index again would hash every function's name once more.
        """
        new = attrs.evolve(self, **changes)
        index = self.__dict__.get("_by_name")
        if index is not None and "functions" not in changes:
            new.__dict__["_by_name"] = index
        return new

    def evolve_indexed(self, index: dict[OperatorName, NativeFunction], **changes: Any) -> Module:
        """``attrs.evolve`` for a pass that built the new functions' name index itself.

        ``index`` must be what the new module would build: each name of the
        new ``functions`` mapped to the first function of that name.
        """
        new = attrs.evolve(self, **changes)
        new.__dict__["_by_name"] = index
        return new

    def function(self, name: OperatorName) -> NativeFunction:
        return self._by_name[name]

    def find_function(self, name: OperatorName) -> NativeFunction | None:
        return self._by_name.get(name)

    def resolution(self, name: OperatorName) -> Resolution:
        """The resolved dispatch of ``name``; only after ``resolve-dispatch`` ran."""
        return self.resolutions[name]

    @property
    def groups(self) -> tuple[VariantGroup, ...]:
        return tuple(g for g in self.grouped_functions if isinstance(g, VariantGroup))

    @property
    def view_groups(self) -> tuple[ViewGroup, ...]:
        return tuple(g for g in self.grouped_views if isinstance(g, ViewGroup))
