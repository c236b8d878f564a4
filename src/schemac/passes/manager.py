"""Running passes: ordering, verification, timing, and stopping early.

The manager is the only place that knows how passes combine.  It orders them
so that every fact a pass ``requires`` is ``provide``d by an earlier one
(ties keep the registry's default order), runs them on the immutable module,
and, when :class:`~schemac.passes.base.PassContext` asks for it, verifies the
IR invariants after each pass (:mod:`schemac.passes.verify`).  It records the
wall time of every pass and can stop after any named pass, which is how
``schemac dump-ir --after PASS`` shows the IR between passes.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence

import attrs

from schemac.diagnostics import Diagnostic, PassError, did_you_mean
from schemac.ir.collector import building_ir
from schemac.ir.module import Module
from schemac.passes.base import Pass, PassContext
from schemac.passes.registry import default_pipeline_names, get_all_passes
from schemac.passes.verify import VerificationError, verify_module


class PipelineError(Exception):
    """The pipeline itself is wrong (unknown pass, unmet requirement, cycle)."""


@attrs.frozen
class PassTiming:
    name: str
    seconds: float
    #: Time spent verifying the IR after the pass (0 when not verifying).
    verify_seconds: float = 0.0


@attrs.frozen
class PipelineResult:
    module: Module
    timings: tuple[PassTiming, ...]
    #: The passes that ran, in order.
    ran: tuple[str, ...]

    def format_timings(self) -> str:
        total = sum(t.seconds + t.verify_seconds for t in self.timings)
        width = max((len(t.name) for t in self.timings), default=4)
        lines = [f"{'pass':<{width}}  {'seconds':>8}  {'verify':>8}"]
        for t in self.timings:
            lines.append(f"{t.name:<{width}}  {t.seconds:8.4f}  {t.verify_seconds:8.4f}")
        lines.append(f"{'total':<{width}}  {total:8.4f}")
        return "\n".join(lines)


def order_passes(passes: Sequence[Pass], rank: dict[str, int] | None = None) -> tuple[Pass, ...]:
    """Topological order by requires/provides; among ready passes, lowest rank first."""
    rank = rank if rank is not None else {n: i for i, n in enumerate(default_pipeline_names())}
    available = {fact for p in passes for fact in p.provides}
    for p in passes:
        missing = [fact for fact in p.requires if fact not in available]
        if missing:
            raise PipelineError(
                f"pass '{p.name}' requires {', '.join(missing)}, "
                "which no pass in the pipeline provides"
            )
    pending = sorted(passes, key=lambda p: rank.get(p.name, len(rank)))
    ordered: list[Pass] = []
    facts: set[str] = set()
    while pending:
        ready = next((p for p in pending if all(f in facts for f in p.requires)), None)
        if ready is None:
            names = ", ".join(p.name for p in pending)
            raise PipelineError(f"passes {names} require each other's facts (a cycle)")
        pending.remove(ready)
        ordered.append(ready)
        facts.update(ready.provides)
    return tuple(ordered)


def _instantiate(names: Iterable[str]) -> list[Pass]:
    registry = get_all_passes()
    passes: list[Pass] = []
    for name in names:
        if name not in registry:
            hint = did_you_mean(name, registry)
            raise PipelineError(f"unknown pass '{name}'" + (f"; {hint}" if hint else ""))
        passes.append(registry[name]()())
    return passes


@attrs.frozen
class PassManager:
    passes: tuple[Pass, ...]

    @classmethod
    def default(cls) -> PassManager:
        """Every registered pass, in dependency order."""
        return cls(order_passes(_instantiate(default_pipeline_names())))

    @classmethod
    def from_names(cls, names: Iterable[str]) -> PassManager:
        return cls(order_passes(_instantiate(names)))

    @classmethod
    def for_requirements(cls, facts: Iterable[str]) -> PassManager:
        """Only the registered passes needed to provide ``facts``, in dependency order.

        A pass is needed if it provides a wanted fact or a fact that a needed
        pass requires; ``schemac compile`` asks for what its backends read, so
        ``-t headers`` never pays for matching derivatives.
        """
        registered = _instantiate(default_pipeline_names())
        providers = {fact: p for p in registered for fact in p.provides}
        wanted = list(facts)
        needed: set[str] = set()
        while wanted:
            fact = wanted.pop()
            if fact not in providers:
                raise PipelineError(f"no pass provides '{fact}'")
            provider = providers[fact]
            if provider.name not in needed:
                needed.add(provider.name)
                wanted.extend(provider.requires)
        return cls(order_passes([p for p in registered if p.name in needed]))

    def names(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.passes)

    def check_pass_name(self, name: str) -> None:
        if name not in self.names():
            hint = did_you_mean(name, self.names())
            raise PipelineError(
                f"no pass named '{name}' in the pipeline"
                + (f"; {hint}" if hint else "")
                + " (see 'schemac passes')"
            )

    def run(
        self,
        ctx: PassContext,
        module: Module,
        *,
        stop_after: str | None = None,
        pause_gc: bool = True,
    ) -> PipelineResult:
        """Run the passes in order.

        With ``pause_gc`` the cyclic collector is paused while passes build IR
        and the result is moved to its oldest generation afterwards
        (:mod:`schemac.ir.collector`): the module is long-lived and acyclic, so
        walking it in collections finds nothing.
        """
        if stop_after is not None:
            self.check_pass_name(stop_after)
        with building_ir(pause=pause_gc):
            return self._run(ctx, module, stop_after)

    def _run(self, ctx: PassContext, module: Module, stop_after: str | None) -> PipelineResult:
        timings: list[PassTiming] = []
        ran: list[str] = []
        facts: set[str] = set()
        # Note [Every independent error]: a failing pass does not end the run.
        # Its facts are missing, so the passes that require them are skipped;
        # the others still run on the module as it was, and every error is
        # raised together at the end.  A pass that crashes on input an
        # earlier pass already refused is not reported: the input is refused.
        errors: list[Diagnostic] = []
        missing: set[str] = set()
        for p in self.passes:
            if missing.intersection(p.requires):
                missing.update(p.provides)
                continue
            start = time.perf_counter()
            try:
                module = p.run(ctx, module)
            except PassError as error:
                errors.extend(error.diagnostics)
                missing.update(p.provides)
                if p.name == stop_after:
                    break
                continue
            except Exception:
                if not errors:
                    raise
                missing.update(p.provides)
                if p.name == stop_after:
                    break
                continue
            elapsed = time.perf_counter() - start
            facts.update(p.provides)
            verify_seconds = 0.0
            if ctx.verify:
                start = time.perf_counter()
                problems = verify_module(module, facts)
                verify_seconds = time.perf_counter() - start
                if problems:
                    raise VerificationError(
                        attrs.evolve(d, message=f"after pass '{p.name}': {d.message}")
                        for d in problems
                    )
            timings.append(PassTiming(p.name, elapsed, verify_seconds))
            ran.append(p.name)
            if p.name == stop_after:
                break
        if errors:
            raise PassError(errors)
        return PipelineResult(module, tuple(timings), tuple(ran))


def run_pipeline(
    module: Module, *, verify: bool = False, stop_after: str | None = None
) -> PipelineResult:
    """Run the default pipeline; the one-call API for the CLI, tests and benchmarks."""
    return PassManager.default().run(PassContext(verify=verify), module, stop_after=stop_after)
