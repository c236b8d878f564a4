"""Running the passes that only some backends need beside the other backends.

Note [Late work]
~~~~~~~~~~~~~~~~
Some passes only add a derived table to the module and leave its functions
as they were: ``match-derivatives`` fills ``module.autograd`` and nothing
else.  A backend that does not read that table (registry ``requires``) emits
the same files whether the pass ran or not.  So when a compile has backends
of both kinds (``-t python``: the binding files read functions only, the
autograd nodes' Python getters read the autograd table), the pass and the
backends that need it can run in a forked worker process while the main
process emits the other backends: on two cores, ``-t python`` then takes
the time of the longer of the two instead of their sum.

:func:`schemac.compile_plan.split_late_work` decides from the registry alone,
for any targets: the late passes are those providing only derived-table
facts, the late backends those requiring one of those facts.  No split is
made when either side would be empty, or when an early pass needs a late
fact.

The result is the same as running everything in one process, byte for byte:
the worker (:mod:`.forked`) runs the same passes on the same module and the
same backends, and sends their files back, in emission order, for the main
process to add to its output set, with the fragments it rendered (Note
[Fragment reuse]: the worker reads the last run's through the inherited
store, and the main process records the ones it sends, which a forked
process cannot append itself); errors it meets (a bad derivative formula)
are raised by the main process, in preference to any error of its own
emission, since run in order the passes would have failed before any backend
ran.  ``schemac compile -j 1`` runs the late passes in line
(:func:`run_late_inline`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

import attrs

from schemac.backends.cpp_names import check_cpp_names
from schemac.backends.forked import ForkedCall
from schemac.backends.output.files import GeneratedFile
from schemac.backends.registry import EmitOptions, RunMemo, backends_for, fragment_unit
from schemac.backends.reuse import (
    Deferred,
    Fingerprints,
    Fragments,
    FragmentStore,
    check_render,
)
from schemac.diagnostics import Diagnostic
from schemac.ir.module import Module
from schemac.profiles import ReleaseProfile, reference_profile

#: Runs the late passes on a module: the module after them, the
#: ``(pass name, seconds)`` of each and the warnings they reported.  Made by
#: :func:`schemac.compile_plan.split_late_work` (backends do not import passes).
LatePasses = Callable[
    [Module], tuple[Module, tuple[tuple[str, float], ...], tuple[Diagnostic, ...]]
]


@attrs.frozen
class LateWork:
    """Passes to run after the others, and the backends (by name) that need them."""

    run_passes: LatePasses
    #: The late passes' names, in run order.
    pass_names: tuple[str, ...]
    backends: frozenset[str]
    #: The late backends' warnings are errors (``--Werror``; EmitOptions.finish).
    werror: bool = False


def run_late_inline(
    module: Module, late: LateWork, timings: list[tuple[str, float]] | None = None
) -> Module:
    """The late passes in this process (``-j 1``, or no ``os.fork``); ``timings`` gets theirs."""
    # The warnings are in the caller's pass context already (same process).
    module, pass_timings, _warnings = late.run_passes(module)
    if timings is not None:
        timings.extend(pass_timings)
    return module


@attrs.frozen
class LateResult:
    """What the worker made: its files, stamped with their targets, in emission order."""

    files: tuple[GeneratedFile, ...]
    #: ``(pass name, seconds)`` of the late passes, then ``(target, seconds)`` of its emission.
    timings: tuple[tuple[str, float], ...]
    #: What the late passes and backends warned about (the worker's pass context is its own copy).
    warnings: tuple[Diagnostic, ...] = ()
    #: (target, local key, text) of every fragment the late backends used, for the main
    #: process to record (Note [Fragment reuse]).
    fragments: tuple[tuple[str, str, str], ...] = ()


class _WorkerFragments:
    """The inherited store, read in the worker; what the worker uses is sent back."""

    def __init__(self, store: FragmentStore) -> None:
        self._store = store
        self.used: list[tuple[str, str, str]] = []

    def fragment(self, target: str, local: str) -> str | None:
        return self._store.fragment(target, local)

    def remember(self, target: str, local: str, text: str) -> None:
        self.used.append((target, local, text))


def emit_late(
    module: Module,
    late: LateWork,
    targets: Sequence[str],
    profile: ReleaseProfile | None = None,
    store: FragmentStore | None = None,
) -> LateResult:
    """Run the late passes, check the C++ names, emit the late backends (in the worker).

    ``store``: the run's fragment store (Note [Fragment reuse]), if it has one.
    """
    module, pass_timings, warnings = late.run_passes(module)
    timings = [(f"{name} (worker)", seconds) for name, seconds in pass_timings]
    # The names every backend prints, checked here and not in the main process
    # (emit_targets), after the late passes as in a run in one process.
    check_cpp_names(module)
    files: list[GeneratedFile] = []
    memo = RunMemo()
    log: list[Diagnostic] = []
    used = None if store is None else _WorkerFragments(store)
    fingerprints = Fingerprints()  # one module: each function digested once (driver._Emission)
    for target in targets:
        start = time.perf_counter()
        options = EmitOptions(
            target=target,
            memo=memo,
            profile=reference_profile() if profile is None else profile,
            werror=late.werror,
            warnings=log,
        )
        entries = [e for e in backends_for(target) if e.name in late.backends]
        for entry in entries:
            pieces = Fragments(used, fragment_unit(target, entry.name), fingerprints)
            for file in entry.load().emit(module, attrs.evolve(options, fragments=pieces)):
                if isinstance(file, Deferred):  # no reuse in the worker: rendered
                    check_render(file)
                    file = file.made()
                files.append(GeneratedFile(file.path, file.text, target, file.span))
        if entries:
            timings.append((f"{target} (worker)", time.perf_counter() - start))
    fragments = () if used is None else tuple(used.used)
    return LateResult(tuple(files), tuple(timings), (*warnings, *log), fragments)


def start_late_worker(
    module: Module,
    late: LateWork,
    targets: Sequence[str],
    profile: ReleaseProfile | None = None,
    store: FragmentStore | None = None,
) -> ForkedCall[LateResult]:
    """:func:`emit_late` in a forked process; its ``raise_if_failed`` gives the
    late passes' errors precedence, as a run in one process would."""
    return ForkedCall(lambda: emit_late(module, late, targets, profile, store), "the late passes")
