"""Which passes of a compile run before the backends, and which beside them.

The mechanism is the backends' (:mod:`schemac.backends.late_work`, Note [Late
work]); the decision needs both the pass pipeline and the backend registry,
so it lives here, above both layers, with the CLI that uses it.
"""

from __future__ import annotations

from collections.abc import Sequence

from schemac.backends.late_work import LateWork
from schemac.backends.registry import backends_for
from schemac.diagnostics import Diagnostic
from schemac.ir.module import Module
from schemac.passes.base import PassContext
from schemac.passes.manager import PassManager

#: Facts whose passes only add a derived table to the module and never change
#: its functions (match-derivatives fills ``module.autograd``); such passes
#: may run late, beside the backends that do not read them.
DERIVED_ONLY_FACTS = frozenset({"autograd-infos"})


def split_late_work(
    manager: PassManager, targets: Sequence[str], context: PassContext
) -> tuple[PassManager, LateWork | None]:
    """``manager`` cut into the passes to run first and the :class:`LateWork`, if any."""
    late_passes = tuple(
        p for p in manager.passes if p.provides and set(p.provides) <= DERIVED_ONLY_FACTS
    )
    late_facts = {fact for p in late_passes for fact in p.provides}
    entries = [entry for target in targets for entry in backends_for(target)]
    late_backends = frozenset(e.name for e in entries if late_facts & set(e.requires))
    early = tuple(p for p in manager.passes if p not in late_passes)
    if (
        not late_passes
        or not late_backends
        or all(e.name in late_backends for e in entries)
        or any(late_facts & set(p.requires) for p in early)
    ):
        return manager, None
    late_manager = PassManager(late_passes)

    def run_passes(
        module: Module,
    ) -> tuple[Module, tuple[tuple[str, float], ...], tuple[Diagnostic, ...]]:
        before = len(context.warnings)
        result = late_manager.run(context, module)
        timings = tuple((t.name, t.seconds) for t in result.timings)
        return result.module, timings, tuple(context.warnings[before:])

    late = LateWork(run_passes, late_manager.names(), late_backends, context.werror)
    return PassManager(early), late
