"""What the ATen backends of one run share: signature views and the plan index.

``-t headers,cpu,cuda,...`` runs one ``emit`` per target over the same
module, and each wants the same views (``at::cpu::add`` and ``at::cuda::add``
are the same C++ API overloads) and the same grouped listing with its
dispatch tables.  The driver's per-run :class:`~schemac.backends.registry.RunMemo`
carries one :class:`AtenRunState` from the first ATen ``emit`` of a run to
the others; nothing outlives the run.
"""

from __future__ import annotations

import attrs

from schemac.backends.aten.registrations.plan import PlanIndex
from schemac.backends.aten.signatures.table import ViewTable
from schemac.backends.registry import EmitOptions
from schemac.ir.module import Module

_MEMO_NAME = "aten-run-state"


@attrs.frozen(eq=False)
class AtenRunState:
    module: Module
    views: ViewTable
    plan: PlanIndex

    @classmethod
    def of(cls, module: Module) -> AtenRunState:
        return cls(module, ViewTable(), PlanIndex.of(module))


def aten_run_state(module: Module, options: EmitOptions) -> AtenRunState:
    """The run's shared state for ``module`` (made on first use)."""
    state = options.memo.get(_MEMO_NAME, lambda: AtenRunState.of(module))
    # A memo belongs to one module; a caller reusing options across modules gets its own.
    return state if state.module is module else AtenRunState.of(module)
