"""Emitting a compile's backends in two processes (``schemac compile -j 2``).

Note [Split emission]
~~~~~~~~~~~~~~~~~~~~~
Once the passes have run, every emission is independent of the others: an
emit call reads the module and writes nothing but its own files.  So with
two cores the emit calls of a compile (a target and one of its backends: a
:class:`Unit`) are dealt into two *shares* of about equal cost
(:func:`plan_shares`), and a forked child emits one share while this process
emits the other.  The child stages its own files for OUT (as ``-j 1`` does,
:class:`~.output.staging.InlineStager`) and sends back only what the commit
and the run's record need: each file's path and target, the staging outcome,
which files it kept as OUT holds them, which reuse keys it asked for and
which fragments it rendered (Note [File reuse], Note [Fragment reuse]; the
record is this process's, so the child's questions are asked again here),
its timings and warnings.  The parent adds the child's files to its output
set (paths are checked and collisions found as in one process) and merges
the two staging directories before the commit.

The output is the same as a run in one process, byte for byte: each unit is
emitted by the same code over the same module, and the commit sees the same
files.  What a run in one process would report is kept too:

* *Late work* (Note [Late work]): passes that only add a derived table (the
  autograd table of ``match-derivatives``) run in the share that holds every
  backend reading it, before that share emits; the other share emits at
  once.  That share also checks the C++ names after those passes
  (:mod:`.cpp_names`), as a run in one process does before any backend.
* *Errors*: each process notes the position of the unit that failed (-1 for
  the late passes and the name check); the error of the lowest position is
  raised, which is the one a run in order would have met first.
* *Warnings* come back tagged with their unit's position and are logged in
  that order.

Costs (:data:`UNIT_COST`) only balance the shares; a wrong estimate makes
``-j 2`` slower, never different.
"""

from __future__ import annotations

from collections.abc import Sequence

import attrs

from schemac.backends.late_work import LateWork
from schemac.backends.output.files import GeneratedFile
from schemac.backends.output.staging import Staged
from schemac.backends.registry import BackendEntry, backends_for, fragment_unit
from schemac.backends.reuse import FileReuse
from schemac.diagnostics import Diagnostic, SchemacError

#: CPU seconds of each emit call (``target/backend``) on torch 2.13's YAML, cold,
#: measured 2026-12-02 in each share of a split run (the first registration
#: call of a process also builds the tables the later ones reuse).
#: Only the balance of the two shares depends on these.  Unlisted calls cost little.
UNIT_COST: dict[str, float] = {
    "headers/aten-headers": 2.1,
    "autograd/autograd": 0.33,
    "autograd/autograd-kernels": 0.33,
    "declarations/declarations": 0.65,
    "python/python-bindings": 0.4,
    "composite/aten-registrations": 0.35,
    "functionalization/functionalization": 0.28,
    "headers/aten-operators": 0.25,
    "cpu/aten-registrations": 0.22,
    "cuda/aten-registrations": 0.19,
    "mps/aten-registrations": 0.13,
    "vmap/vmap-plumbing": 0.11,
    "meta/aten-registrations": 0.1,
    "schema/aten-schema": 0.08,
    "composite/aten-view-copy-kernels": 0.06,
}
_SMALL_COST = 0.02
#: The late passes (``match-derivatives``: ~0.11 s on torch's YAML).
LATE_PASSES_COST = 0.11
#: How much dearer an emit call is counted in the child than in the parent.
#: Calls do run slower there (copy-on-write faults of the pages they touch:
#: +12% to +45% call by call on torch's -t all), but the parent has the
#: commit after both: cold -t all, alternating, 2026-12-02 14:53 UTC, took
#: 5.15-5.91 s wall with 0, 5.20-6.01 s with 0.1, 5.57-6.16 s with 0.2.
CHILD_SLOWDOWN = 0.0

#: Position of the late passes and the name check: before every unit.
BEFORE_UNITS = -1


@attrs.frozen
class Unit:
    """One emit call: a backend emitting one target, at its place in the run's order."""

    position: int
    target: str
    backend: BackendEntry

    @property
    def cost(self) -> float:
        return UNIT_COST.get(fragment_unit(self.target, self.backend.name), _SMALL_COST)


def emission_units(targets: Sequence[str]) -> tuple[Unit, ...]:
    """Every emit call of ``targets``, in the order a run in one process makes them."""
    pairs = [(target, entry) for target in targets for entry in backends_for(target)]
    return tuple(Unit(n, target, entry) for n, (target, entry) in enumerate(pairs))


@attrs.frozen
class Shares:
    """The units emitted here and in the child; ``late``: the child runs the late work."""

    here: tuple[Unit, ...]
    there: tuple[Unit, ...]
    late: bool = False


def plan_shares(units: Sequence[Unit], late: LateWork | None) -> Shares | None:
    """Two shares of about equal cost, or None when a split cannot pay.

    The units reading a late fact stay together, with the late passes, in
    the child's share; the others are dealt largest first to the share that
    would finish first with them, a call costing :data:`CHILD_SLOWDOWN` more
    in the child (each share then keeps the run's order).
    """
    late_units = [u for u in units if late is not None and u.backend.name in late.backends]
    rest = sorted((u for u in units if u not in late_units), key=lambda u: (-u.cost, u.position))
    here: list[Unit] = []
    there: list[Unit] = list(late_units)
    child = 1.0 + CHILD_SLOWDOWN
    late_cost = sum(u.cost for u in late_units) + (LATE_PASSES_COST if late_units else 0.0)
    costs = [0.0, late_cost * child]
    for unit in rest:
        # To the share that would finish first with it.
        if costs[0] + unit.cost <= costs[1] + unit.cost * child:
            here.append(unit)
            costs[0] += unit.cost
        else:
            there.append(unit)
            costs[1] += unit.cost * child
    if not here or not there:
        return None
    by_position = lambda u: u.position  # noqa: E731 - a sort key
    return Shares(
        tuple(sorted(here, key=by_position)),
        tuple(sorted(there, key=by_position)),
        bool(late_units),
    )


@attrs.frozen
class Failure:
    """A diagnosed error met at ``position`` (Note [Split emission], "Errors")."""

    position: int
    error_type: type[SchemacError]
    diagnostics: tuple[Diagnostic, ...]

    def error(self) -> SchemacError:
        return self.error_type(self.diagnostics)


@attrs.frozen
class ShareResult:
    """What the child sends back (its files' texts are staged, not sent)."""

    #: Its files, in emission order, with their text only when nothing staged them.
    files: tuple[GeneratedFile, ...] = ()
    staged: Staged | None = None
    #: (path, target) of the files kept as OUT holds them.
    kept: tuple[tuple[str, str], ...] = ()
    #: (target, path, local key) of every reuse question the child asked.
    asked: tuple[tuple[str, str, str], ...] = ()
    #: (unit, local key, text) of every fragment its backends used.
    fragments: tuple[tuple[str, str, str], ...] = ()
    timings: tuple[tuple[str, float], ...] = ()
    #: (position, warning) of what it warned about.
    warnings: tuple[tuple[int, Diagnostic], ...] = ()
    failure: Failure | None = None


class ChildReuse:
    """The inherited run record, read in the child; its questions are noted for the parent."""

    def __init__(self, reuse: FileReuse) -> None:
        self._reuse = reuse
        self.asked: list[tuple[str, str, str]] = []
        self.used: list[tuple[str, str, str]] = []

    def keep(self, target: str, path: str, local: str) -> bool:
        self.asked.append((target, path, local))
        return self._reuse.keep(target, path, local)

    def fragment(self, target: str, local: str) -> str | None:
        return self._reuse.fragment(target, local)

    def remember(self, target: str, local: str, text: str) -> None:
        self.used.append((target, local, text))


def replay(result: ShareResult, reuse: FileReuse | None) -> None:
    """Ask the parent's record what the child asked, and record its fragments."""
    if reuse is None:
        return
    for target, path, local in result.asked:
        reuse.keep(target, path, local)
    for unit, local, text in result.fragments:
        reuse.remember(unit, local, text)
