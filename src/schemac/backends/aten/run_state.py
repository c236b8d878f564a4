"""What the ATen backends of one run share: signature views and the plan index.

``-t headers,cpu,cuda,...`` runs one ``emit`` per target over the same
module, and each wants the same views (``at::cpu::add`` and ``at::cuda::add``
are the same C++ API overloads) and the same grouped listing with its
dispatch tables, and the same compiled templates.  The driver's per-run
:class:`~schemac.backends.registry.RunMemo` carries one :class:`AtenRunState`
from the first ATen ``emit`` of a run to the others; nothing outlives the run.
"""

from __future__ import annotations

import functools

import attrs

from schemac.backends.aten.headers.catalog import Catalog, build_catalog
from schemac.backends.aten.registrations.plan import PlanIndex
from schemac.backends.aten.signatures.table import ViewTable
from schemac.backends.registry import EmitOptions
from schemac.backends.templating import Templates
from schemac.ir.module import Module
from schemac.profiles import ReleaseProfile

_MEMO_NAME = "aten-run-state"


@attrs.frozen(eq=False)
class AtenRunState:
    module: Module
    views: ViewTable
    #: Each package's templates, compiled once per run rather than once per target.
    _templates: dict[str, Templates] = attrs.field(factory=dict, alias="_templates")
    #: The headers' catalog, built by the first headers backend of the run and
    #: read by the other (its entries carry their views): (profile, catalog).
    _catalogs: list[tuple[ReleaseProfile | None, Catalog]] = attrs.field(
        factory=list, alias="_catalogs"
    )

    @classmethod
    def of(cls, module: Module) -> AtenRunState:
        return cls(module, ViewTable())

    @functools.cached_property
    def plan(self) -> PlanIndex:
        """The module's plan index, built by the first backend that reads it: the
        per-operator headers and ``Operators.cpp`` never do, and a process of a
        split ``-t headers`` that emits only those was building it for nothing
        (~1.5 MiB of its peak memory)."""
        return PlanIndex.of(self.module)

    def templates(self, package: str) -> Templates:
        if package not in self._templates:
            self._templates[package] = Templates(package)
        return self._templates[package]

    def catalog(self, profile: ReleaseProfile | None) -> Catalog:
        """The module's :class:`Catalog` for ``profile``, over this run's views."""
        for known, catalog in self._catalogs:
            if known is profile:
                return catalog
        catalog = build_catalog(self.module, self.views, profile)
        self._catalogs.append((profile, catalog))
        return catalog


def aten_run_state(module: Module, options: EmitOptions) -> AtenRunState:
    """The run's shared state for ``module`` (made on first use)."""
    state = options.memo.get(_MEMO_NAME, lambda: AtenRunState.of(module))
    # A memo belongs to one module; a caller reusing options across modules gets its own.
    return state if state.module is module else AtenRunState.of(module)
