"""What a pass is.

A pass is a small class with a ``name``, a one-line ``summary``, the facts it
``requires`` and ``provides`` (plain strings such as ``"resolved-dispatch"``),
and a ``run(ctx, module) -> module`` method.  The IR is immutable, so a pass
returns a new module (``attrs.evolve``) and never edits its input; the pass
manager can then keep, dump or verify the module after every pass.

Passes report problems by raising :class:`~schemac.diagnostics.PassError` with
every diagnostic they found (collect with a ``DiagnosticSink``, then
:meth:`PassContext.finish`, which raises the errors and keeps the warnings).
Options a pass takes are attrs fields on the pass class; what depends on the
target PyTorch release is read from ``ctx.profile``.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable
from typing import ClassVar

import attrs

from schemac.diagnostics import Diagnostic, DiagnosticSink, PassError, SchemacError
from schemac.ir.module import Module
from schemac.profiles import ReleaseProfile, reference_profile


@attrs.frozen(slots=False)
class HelperNames:
    """Functions a derivative formula may call besides ATen operators.

    ``authoritative``: the names were read from the target's own headers (or
    a names file), so a call to anything else is an error; without it, the
    release profile's list is a best guess and an unknown call a warning.

    ``read`` gives the names; it is called on first use of :attr:`names`, so
    a compile whose passes check no formula never reads the headers.
    """

    read: Callable[[], frozenset[str]] = attrs.field(eq=False, repr=False)
    authoritative: bool = False
    #: Where the names came from, for the hint of an unknown call.
    origin: str = ""

    @classmethod
    def of(cls, names: Iterable[str], *, authoritative: bool, origin: str = "") -> HelperNames:
        known = frozenset(names)
        return cls(lambda: known, authoritative, origin)

    @functools.cached_property
    def names(self) -> frozenset[str]:
        return self.read()


@attrs.frozen
class PassContext:
    """Run-wide settings every pass may read; no pass mutates them.

    ``warnings`` is the one exception: the run's warning log, appended to by
    :meth:`finish` and read by the caller after the run.
    """

    #: Check IR invariants after every pass (the manager does it).
    verify: bool = False
    #: The target release's policy (Note [Release profiles]).
    profile: ReleaseProfile = attrs.field(factory=reference_profile)
    #: Turn warnings into errors (``--Werror``).
    werror: bool = False
    #: Helper names read from headers or a names file; None: the profile's.
    helpers: HelperNames | None = None
    #: Base names of operators whose entries the load left out because they
    #: failed (Note [Every error in one run] in schemac.frontend.failed_entries):
    #: a pass reports nothing merely for referring to one.
    left_out: frozenset[str] = frozenset()
    warnings: list[Diagnostic] = attrs.field(factory=list, eq=False, repr=False)

    def finish(self, sink: DiagnosticSink, error_type: type[SchemacError] = PassError) -> None:
        """Raise the sink's errors (and, with ``werror``, its warnings); log the rest."""
        sink.raise_if_any(error_type, werror=self.werror)
        self.warnings.extend(sink.warnings)

    def helper_names(self) -> HelperNames:
        if self.helpers is not None:
            return self.helpers
        return HelperNames.of(
            self.profile.names("autograd_helpers"),
            authoritative=False,
            origin=f"torch {self.profile.release}'s release profile",
        )


class Pass:
    """Base class of every pass; subclasses are ``@attrs.frozen``."""

    name: ClassVar[str]
    summary: ClassVar[str]
    requires: ClassVar[tuple[str, ...]] = ()
    provides: ClassVar[tuple[str, ...]] = ()

    def run(self, ctx: PassContext, module: Module) -> Module:
        raise NotImplementedError
