"""The unit every pass transforms and every backend reads.

A :class:`Module` holds everything loaded from one operator library (its
native functions, tag definitions, derivative entries and deprecated Python
signatures) plus what the passes derive from them.  It is immutable: a pass
returns a new module (``attrs.evolve``), so the IR after every pass can be kept,
dumped and compared.
"""

from __future__ import annotations

import attrs

from schemac.ir.derivatives import DeprecatedSignature, DerivativeEntry
from schemac.ir.native import NativeFunction
from schemac.ir.tags import TagDefinition


@attrs.frozen
class SourceFiles:
    """Which files the module was loaded from (for headers and depfiles)."""

    native_functions: str
    tags: str | None = None
    derivatives: str | None = None
    deprecated: str | None = None


@attrs.frozen
class Module:
    sources: SourceFiles
    functions: tuple[NativeFunction, ...] = ()
    tags: tuple[TagDefinition, ...] = ()
    derivatives: tuple[DerivativeEntry, ...] = ()
    deprecated: tuple[DeprecatedSignature, ...] = ()
