"""Groups of related native functions, as the grouping passes find them.

Most operators come in families that share one normalised signature (see
:mod:`schemac.ir.signature`): ``add.Tensor`` (functional), ``add_.Tensor``
(in-place), ``add.out`` (out=) and sometimes a *mutable* variant that writes to
positional arguments.  A :class:`VariantGroup` names the members of one family;
structured kernels, functionalization and several backends work per group.

View operators form a second kind of family: a view (``transpose.int``), its
in-place view (``transpose_``) and the non-aliasing copy
(``transpose_copy.int``); a :class:`ViewGroup` names those.

Groups refer to functions by :class:`~schemac.ir.names.OperatorName`; the
module's verifier checks that every name refers to an existing function.
"""

from __future__ import annotations

from collections.abc import Iterator

import attrs

from schemac.ir.names import OperatorName


@attrs.frozen
class VariantGroup:
    """Functional, out= and optionally in-place and mutable variants of one operator."""

    functional: OperatorName
    out: OperatorName
    inplace: OperatorName | None = None
    mutable: OperatorName | None = None
    #: The out= variant is a structured kernel and the others delegate to it.
    structured: bool = False

    def members(self) -> Iterator[OperatorName]:
        """In the order the reference lists them: functional, out, in-place, mutable."""
        yield self.functional
        yield self.out
        if self.inplace is not None:
            yield self.inplace
        if self.mutable is not None:
            yield self.mutable


@attrs.frozen
class ViewGroup:
    """A view operator with its optional ``_copy`` twin and in-place view."""

    view: OperatorName
    view_copy: OperatorName | None = None
    view_inplace: OperatorName | None = None

    def members(self) -> Iterator[OperatorName]:
        yield self.view
        if self.view_inplace is not None:
            yield self.view_inplace
        if self.view_copy is not None:
            yield self.view_copy


#: One item of a grouped listing: a group, or a function that belongs to none.
Grouped = VariantGroup | OperatorName
ViewGrouped = ViewGroup | OperatorName
