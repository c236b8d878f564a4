"""What a pass is.

A pass is a small class with a ``name``, a one-line ``summary``, the facts it
``requires`` and ``provides`` (plain strings such as ``"resolved-dispatch"``),
and a ``run(ctx, module) -> module`` method.  The IR is immutable, so a pass
returns a new module (``attrs.evolve``) and never edits its input; the pass
manager can then keep, dump or verify the module after every pass.

Passes report problems by raising :class:`~schemac.diagnostics.PassError` with
every diagnostic they found (collect with a ``DiagnosticSink``, raise once).
Options a pass takes are attrs fields on the pass class.
"""

from __future__ import annotations

from typing import ClassVar

import attrs

from schemac.ir.module import Module


@attrs.frozen
class PassContext:
    """Run-wide settings every pass may read; no pass mutates it."""

    #: Check IR invariants after every pass (the manager does it).
    verify: bool = False


class Pass:
    """Base class of every pass; subclasses are ``@attrs.frozen``."""

    name: ClassVar[str]
    summary: ClassVar[str]
    requires: ClassVar[tuple[str, ...]] = ()
    provides: ClassVar[tuple[str, ...]] = ()

    def run(self, ctx: PassContext, module: Module) -> Module:
        raise NotImplementedError
