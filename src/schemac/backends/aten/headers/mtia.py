"""The ``mtia`` target's headers: ``MTIAFunctions.h``, ``_inl.h`` and ``ops/<op>_mtia_dispatch.h``.

MTIA's kernels are written out of tree, but the ``at::mtia::`` direct-call
functions that ``RegisterMTIA_0.cpp`` defines are declared in ATen like every
other key's (torchgen writes them only with ``--mtia``).  They are the same
family as the ``headers`` target's per-key headers (dispatch_keys.py), in a
backend of their own so that only a build selecting ``mtia`` gets them.
The MTIA kernels themselves are declared in ``ops/<op>_native.h`` with every
other key's (natives.py).
"""

from __future__ import annotations

from collections.abc import Iterator

import attrs

from schemac.backends.aten.collector import module_frozen
from schemac.backends.aten.headers.backend import iter_key_headers
from schemac.backends.aten.run_state import aten_run_state
from schemac.backends.output.files import GeneratedFile
from schemac.backends.registry import EmitOptions
from schemac.backends.reuse import Deferred
from schemac.ir.module import Module

KEY = "MTIA"


@attrs.frozen
class MtiaHeadersBackend:
    name: str = "aten-mtia-headers"
    description: str = "MTIAFunctions.h, MTIAFunctions_inl.h and ops/<op>_mtia_dispatch.h"
    targets: tuple[str, ...] = ("mtia",)

    def emit(self, module: Module, options: EmitOptions) -> Iterator[GeneratedFile | Deferred]:
        # The run's catalog and views (the headers target's, when it runs too).
        with module_frozen():
            yield from iter_key_headers(
                module, KEY, aten_run_state(module, options), options.profile
            )


BACKEND = MtiaHeadersBackend()
