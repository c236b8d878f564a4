"""The passes that only some backends need, run just before those backends.

Note [Late work]
~~~~~~~~~~~~~~~~
Some passes only add a derived table to the module and leave its functions
as they were: ``match-derivatives`` fills ``module.autograd`` and nothing
else.  A backend that does not read that table (registry ``requires``) emits
the same files whether the pass ran or not.  So when a compile has backends
of both kinds (``-t python``: the binding files read functions only, the
autograd nodes' Python getters read the autograd table), the pass and the
backends that need it can run in the second process of a split ``-j 2``
(Note [Split emission] in :mod:`.split`) while the first emits the other
backends: on two cores, ``-t python`` then takes the time of the longer of
the two instead of their sum.

:func:`schemac.compile_plan.split_late_work` decides from the registry alone,
for any targets: the late passes are those providing only derived-table
facts, the late backends those requiring one of those facts.  No split is
made when either side would be empty, or when an early pass needs a late
fact.

The result is the same as running everything in one process, byte for byte:
the child runs the same passes on the same module and the same backends;
errors it meets (a bad derivative formula) are raised in preference to any
error of the other share, since run in order the passes would have failed
before any backend ran.  Without a split the late passes run in line
(:func:`run_late_inline`) before every backend.
"""

from __future__ import annotations

from collections.abc import Callable

import attrs

from schemac.backends.cpp_names import cpp_name_diagnostics
from schemac.diagnostics import Diagnostic, SchemacError
from schemac.ir.module import Module

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


def run_late_passes(
    module: Module, late: LateWork
) -> tuple[Module, tuple[tuple[str, float], ...], tuple[Diagnostic, ...]]:
    """``late.run_passes(module)``, in this process or the split's child.

    A failure reports the C++ names' problems too, as a failure of the
    passes run before any backend does (the compile's ``every_problem``): a
    bad derivative formula beside a bad name gives both errors whichever
    targets the compile has, not only when ``match-derivatives`` happens to
    run with the other passes."""
    try:
        return late.run_passes(module)
    except SchemacError as error:
        raise type(error)([*error.diagnostics, *cpp_name_diagnostics(module)]) from None


def run_late_inline(
    module: Module, late: LateWork, timings: list[tuple[str, float]] | None = None
) -> Module:
    """The late passes in this process (``-j 1``, or no ``os.fork``); ``timings`` gets theirs."""
    # The warnings are in the caller's pass context already (same process).
    module, pass_timings, _warnings = run_late_passes(module, late)
    if timings is not None:
        timings.extend(pass_timings)
    return module
