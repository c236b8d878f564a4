"""Emitting a compile's backends in two processes (``schemac compile -j 2``).

Note [Split emission]
~~~~~~~~~~~~~~~~~~~~~
Once the passes have run, every emission is independent of the others: an
emit call reads the module and writes nothing but its own files.  So with
two cores the emit calls of a compile (a target and one of its backends: a
:class:`Unit`) are shared between this process and a forked child
(:func:`plan_split`).  They are not dealt in advance: the units wait in a
:class:`UnitQueue`, largest first (:data:`UNIT_COST`), and whichever process
is free takes the next one.  A fixed deal has to guess each call's cost, and
the guesses are wrong in both directions: a call in the child runs 12-45%
slower than in the parent (copy-on-write faults of the pages it touches),
the machine's other load slows either process, and a re-run after an edit
reuses most files, which changes every call's cost.  Taking units as they
come balances whatever the costs turn out to be.

The child stages its own files for OUT (as ``-j 1`` does,
:class:`~.output.staging.InlineStager`) and sends back only what the commit
and the run's record need: each file's path and target, the staging
outcome, which files it kept as OUT holds them, its timings and warnings,
and what its copy of the run's record learnt (``FileReuse.child_handover``:
the file keys it computed, the fragments it used, left in a file of its own,
and the files it read; Note [File reuse], Note [Fragment reuse]), which the
parent's record adopts.  The parent adds the child's files
to its output set (paths are checked and collisions found as in one
process) and merges the two staging directories before the commit.

The output is the same as a run in one process, byte for byte, whichever
process took which unit: each unit is emitted by the same code over the same
module, and the commit sees the same files.  What a run in one process would
report is kept too:

* *Late work* (Note [Late work]): passes that only add a derived table (the
  autograd table of ``match-derivatives``) run in the child first, and the
  units reading that table are the child's own (:attr:`SplitPlan.child_first`);
  meanwhile the parent takes units from the queue.  The child also checks the
  C++ names after those passes (:mod:`.cpp_names`), as a run in one process
  does before any backend.
* *Errors*: a process that meets an error notes the position of its unit (-1
  for the late passes and the name check) and takes no more units; the other
  one empties the queue, so every unit a run in order would have emitted
  before the error is emitted, and the error of the lowest position is the
  one raised: the one a run in order meets first.
* *Warnings* come back tagged with their unit's position and are logged in
  that order; output-path problems are reported in an order of their own
  (:class:`~.output.files.OutputSet`), not in the order files arrived.

Costs only order the queue; a wrong estimate makes ``-j 2`` slower, never
different.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Callable, Iterable, Iterator, Sequence

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
    # The two halves of the headers (JOINT_UNITS): 2.1 s together in -t all.
    "headers/aten-aggregate-headers": 1.05,
    "headers/aten-headers": 1.05,
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


#: Emit calls that read one catalog and view table: in one process the second
#: reuses what the first computed (-t headers' two halves: 0.7 and 0.8 s alone,
#: 1.3 s together).  They are queued as one entry, which one process takes
#: whole, unless they cost more than every other call of the run together:
#: then that process would emit them while the other one idles, and they go
#: apart (``-t headers`` alone; ``-t all`` keeps them together).
JOINT_UNITS: tuple[frozenset[str], ...] = (
    frozenset({"headers/aten-aggregate-headers", "headers/aten-headers"}),
)


#: Emit calls queued before the others, whatever their cost.
#:
#: Note [Operators.cpp queued first]
#: ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
#: ``OperatorsEverything.cpp`` is 3 MB of text made beside its 3 MB of
#: definitions.  Queued last (it is the smallest of ``-t headers``' three
#: calls), it went to whichever process finished its half of the headers
#: first, and rendered beside that half's catalog, views and plan: the peak of
#: a split ``-t headers`` (68.8 MiB in the process that took it after the
#: aggregate headers, against ~66 for the aggregate headers alone).  First, it
#: renders while only the dispatcher views are alive, as in a run in order
#: (see the registry); the process taking it then takes the half the other
#: one left, so the shares are as even as before (0.25 + 1.05 s against 1.05 s
#: slowed by the child's copy-on-write faults).
EARLY_UNITS = frozenset({"headers/aten-operators"})


@attrs.frozen
class SplitPlan:
    """Which units the child emits first, and the queue's entries, largest first."""

    #: The units reading a late fact: the child's, after the late passes.
    child_first: tuple[Unit, ...]
    #: The queue's entries in the order it hands them out: each the units (one,
    #: or joint units) that the process taking it emits in turn.
    lots: tuple[tuple[Unit, ...], ...]

    @property
    def late(self) -> bool:
        """Whether the child runs the late work (before its own units)."""
        return bool(self.child_first)

    @property
    def queued(self) -> tuple[Unit, ...]:
        """Every queued unit, in the order the queue hands them out."""
        return tuple(u for lot in self.lots for u in lot)

    def after(self, unit: Unit) -> tuple[Unit, ...]:
        """The units a process that emitted ``unit`` may still emit: the queue
        hands its entries out in order, so those of later entries (and the
        child's own before them)."""
        if unit in self.child_first:
            return (*self.child_first[self.child_first.index(unit) + 1 :], *self.queued)
        queued = self.queued
        return queued[queued.index(unit) + 1 :]


def plan_split(units: Sequence[Unit], late: LateWork | None) -> SplitPlan | None:
    """How ``units`` are shared, or None when a split cannot pay: one unit, or
    every unit waits for the late passes (nothing for the parent to do)."""
    child_first = tuple(u for u in units if late is not None and u.backend.name in late.backends)
    rest = [u for u in units if u not in child_first]
    lots = sorted(
        _lots(rest, sum(u.cost for u in child_first)),
        key=lambda lot: (not _early(lot), -sum(u.cost for u in lot), lot[0].position),
    )
    if len(units) < 2 or not lots or len(lots) >= UnitQueue.END:
        return None
    if len(lots) == 1 and not child_first:
        return None
    return SplitPlan(child_first, tuple(lots))


def _early(lot: tuple[Unit, ...]) -> bool:
    return any(fragment_unit(u.target, u.backend.name) in EARLY_UNITS for u in lot)


def _lots(units: Sequence[Unit], busy: float) -> list[tuple[Unit, ...]]:
    """``units`` as queue entries: joint units together unless they cost more than
    the others and ``busy`` (the child's own units) together."""
    lots: list[tuple[Unit, ...]] = []
    joint: dict[frozenset[str], list[Unit]] = {}
    for unit in units:
        name = fragment_unit(unit.target, unit.backend.name)
        group = next((g for g in JOINT_UNITS if name in g), None)
        if group is None:
            lots.append((unit,))
        else:
            joint.setdefault(group, []).append(unit)
    total = busy + sum(u.cost for u in units)
    for members in joint.values():
        cost = sum(u.cost for u in members)
        if len(members) > 1 and cost <= total - cost:
            lots.append(tuple(members))
        else:
            lots.extend((u,) for u in members)
    return lots


#: Tests pin which process emits each queued unit (True: the child), to make
#: one side or the other meet a file or an error; None: whoever is free.
PIN_TO_CHILD: Callable[[Unit], bool] | None = None


class UnitQueue:
    """The queued entries of a split, each taken by exactly one of the two processes.

    A pipe holding each entry's index as one byte, then one end mark per
    process: reads of one byte from a pipe never interleave, so two
    processes reading it each get a different entry, and every entry is
    taken once.  Written whole before the fork (a few dozen bytes: far below
    the pipe's capacity, so the write never blocks), it needs no lock and no
    helper; each process stops at the first end mark it reads.
    """

    END = 255

    def __init__(self, lots: Sequence[tuple[Unit, ...]]) -> None:
        assert len(lots) < self.END, "one byte per entry"
        self._lots = tuple(lots)
        self._read, write = os.pipe()
        try:
            os.write(write, bytes(range(len(lots))) + bytes((self.END, self.END)))
        finally:
            os.close(write)
        self._closed = False

    def take(self) -> Iterator[Unit]:
        """The units this process takes, an entry at a time, until the queue is empty."""
        while not self._closed:
            byte = os.read(self._read, 1)
            if not byte or byte[0] == self.END:
                return
            yield from self._lots[byte[0]]

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            os.close(self._read)


def following(plan: SplitPlan) -> Callable[[Unit], Sequence[Unit]] | None:
    """:meth:`SplitPlan.after`, unless tests pin the units to the processes."""
    return None if PIN_TO_CHILD is not None else plan.after


def dealt(plan: SplitPlan) -> tuple[Iterable[Unit], Iterable[Unit], Callable[[], None]]:
    """The parent's units, the child's and what closes the queue (in each process)."""
    if PIN_TO_CHILD is not None:
        pin = PIN_TO_CHILD
        here = [u for u in plan.queued if not pin(u)]
        there = [u for u in plan.queued if pin(u)]
        return here, [*plan.child_first, *there], lambda: None
    queue = UnitQueue(plan.lots)
    return queue.take(), itertools.chain(plan.child_first, queue.take()), queue.close


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

    #: (rank, file) of its files in emission order (the rank: the position of
    #: the unit that made it), with their text only when nothing staged them.
    files: tuple[tuple[int, GeneratedFile], ...] = ()
    staged: Staged | None = None
    #: (path, unit) of the files kept as OUT holds them.
    kept: tuple[tuple[str, str], ...] = ()
    #: What its record learnt (``FileReuse.child_handover``: the fragments
    #: its backends used, left on disk, and the files they read).
    handover: object | None = None
    timings: tuple[tuple[str, float], ...] = ()
    #: (position, warning) of what it warned about.
    warnings: tuple[tuple[int, Diagnostic], ...] = ()
    failure: Failure | None = None


def replay(result: ShareResult, reuse: FileReuse | None) -> None:
    """Take into the parent's record what the child's copy of it learnt."""
    if reuse is not None:
        reuse.adopt_handover(result.handover)
