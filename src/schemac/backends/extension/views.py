"""The ATen signature views, as an extension library sees them.

The views themselves are ATen's (:mod:`schemac.backends.aten.signatures`): a
kernel declared here has exactly the C++ signature ATen would give it, so a
mismatch between the YAML and a hand-written kernel is a compile error.  The
one difference is where structured meta classes live: ``<ns>::meta``
instead of ``at::meta``.
"""

from __future__ import annotations

import attrs

from schemac.backends.aten.signatures import StructuredMeta
from schemac.backends.aten.signatures.table import ViewTable
from schemac.ir.native import NativeFunction


class ExtensionViews(ViewTable):
    """A :class:`ViewTable` whose structured meta classes are in ``meta_namespace``."""

    def __init__(self, meta_namespace: str) -> None:
        super().__init__()
        self.meta_namespace = meta_namespace
        self._moved: dict[int, tuple[StructuredMeta, StructuredMeta]] = {}

    def structured_meta(self, functional: NativeFunction, out: NativeFunction) -> StructuredMeta:
        meta = super().structured_meta(functional, out)
        hit = self._moved.get(id(meta))
        if hit is None:
            hit = self._moved[id(meta)] = (meta, attrs.evolve(meta, namespace=self.meta_namespace))
        return hit[1]
