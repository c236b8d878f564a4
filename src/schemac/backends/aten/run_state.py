"""What the ATen backends of one run share: signature views and the plan index.

``-t headers,cpu,cuda,...`` runs one ``emit`` per target over the same
module, and each wants the same views (``at::cpu::add`` and ``at::cuda::add``
are the same C++ API overloads) and the same grouped listing with its
dispatch tables, and the same compiled templates.  The driver's per-run
:class:`~schemac.backends.registry.RunMemo` carries one :class:`AtenRunState`
from the first ATen ``emit`` of a run to the others; nothing outlives the run.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable

import attrs

from schemac.backends.aten.headers.catalog import Catalog, build_catalog
from schemac.backends.aten.registrations.plan import PlanIndex
from schemac.backends.aten.signatures.table import ViewTable
from schemac.backends.registry import ATEN_PLAN, ATEN_STATE, EmitOptions, RunMemo
from schemac.backends.templating import Templates
from schemac.ir.module import Module
from schemac.profiles import ReleaseProfile


@attrs.frozen(eq=False)
class AtenRunState:
    module: Module
    views: ViewTable
    #: The memo holding the plan index, apart from this state, so that the
    #: driver can drop the plan once no unit still to come reads it (Note [Memo
    #: values dropped after their last reader] in :mod:`schemac.backends.driver`):
    #: the run's memo by a weak reference (it holds this state, and a compile
    #: collects no reference cycles), or a memo of this state's own.
    _plan_memo: Callable[[], RunMemo | None] = attrs.field(alias="_plan_memo")
    #: Each package's templates, compiled once per run rather than once per target.
    _templates: dict[str, Templates] = attrs.field(factory=dict, alias="_templates")
    #: The headers' catalog, built by the first headers backend of the run and
    #: read by the other (its entries carry their views): (profile, catalog).
    _catalogs: list[tuple[ReleaseProfile | None, Catalog]] = attrs.field(
        factory=list, alias="_catalogs"
    )

    @classmethod
    def of(cls, module: Module, memo: RunMemo | None = None) -> AtenRunState:
        """``memo``: the run's, which will hold the new state."""
        if memo is None:
            own = RunMemo()
            return cls(module, ViewTable(), _plan_memo=lambda: own)
        return cls(module, ViewTable(), _plan_memo=weakref.ref(memo))

    @property
    def plan(self) -> PlanIndex:
        """The module's plan index, built by the first backend that reads it: the
        per-operator headers and ``Operators.cpp`` never do, and a process of a
        split ``-t headers`` that emits only those was building it for nothing
        (~1.5 MiB of its peak memory)."""
        memo = self._plan_memo()
        if memo is None:  # the run is over: nothing will read the plan again
            return PlanIndex.of(self.module)
        return memo.get(ATEN_PLAN, lambda: PlanIndex.of(self.module))

    def done_with_plan(self) -> None:
        """The calling emit call reads the plan index no more: it goes now
        unless an emit call still to come reads it (``RunMemo.done_with``)."""
        memo = self._plan_memo()
        if memo is not None:
            memo.done_with(ATEN_PLAN)

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
    state = options.memo.get(ATEN_STATE, lambda: AtenRunState.of(module, options.memo))
    # A memo belongs to one module; a caller reusing options across modules gets its own.
    return state if state.module is module else AtenRunState.of(module)
