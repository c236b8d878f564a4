"""The ``-t`` targets of the registration backend and the keys each one covers.

A target names a family of dispatch keys rather than one key, because a user
building for one device wants all of that device's registrations (``sparse``
is every ``Sparse<Backend>`` key).  Every key in :data:`TARGET_KEYS` gets a
``Register<Key>`` file whenever its target is selected, even when no
operator has a kernel for it: build systems list these files statically.
"""

from __future__ import annotations

from collections.abc import Iterator

import attrs

from schemac.backends.aten.collector import module_frozen
from schemac.backends.aten.registrations.register_key import PACKAGE, register_key_files
from schemac.backends.aten.run_state import aten_run_state
from schemac.backends.output.files import GeneratedFile
from schemac.backends.registry import EmitOptions
from schemac.ir.dispatch import COMPOSITE_KEYS
from schemac.ir.module import Module

#: Target -> dispatch keys, in the order the dispatcher lists the keys.
TARGET_KEYS: dict[str, tuple[str, ...]] = {
    "cpu": ("CPU",),
    "cuda": ("CUDA",),
    "mps": ("MPS",),
    "xpu": ("XPU",),
    "meta": ("Meta",),
    "composite": COMPOSITE_KEYS,
    "quantized": ("QuantizedCPU", "QuantizedCUDA", "QuantizedMeta"),
    "sparse": ("SparseCPU", "SparseCUDA", "SparseMPS", "SparseXPU", "SparseMeta"),
    "sparsecsr": ("SparseCsrCPU", "SparseCsrCUDA", "SparseCsrMPS", "SparseCsrXPU", "SparseCsrMeta"),
    # NestedTensorHPU belongs to the ``hpu`` target: one key, one target, so
    # ``-t all`` never produces a file twice.
    "nested": ("NestedTensorCPU", "NestedTensorCUDA", "NestedTensorXPU", "NestedTensorMeta"),
    "hpu": ("NestedTensorHPU",),
    "mkldnn": ("MkldnnCPU",),
    "zerotensor": ("ZeroTensor",),
    "mtia": ("MTIA",),
}


@attrs.frozen
class RegistrationBackend:
    name: str = "aten-registrations"
    description: str = "Register<Key>.cpp: kernel wrappers and registrations per dispatch key"
    targets: tuple[str, ...] = tuple(TARGET_KEYS)

    def emit(self, module: Module, options: EmitOptions) -> Iterator[GeneratedFile]:
        # A generator, so each file reaches the driver as soon as it is rendered;
        # the module stays frozen until the last one.
        with module_frozen():
            state = aten_run_state(module, options)
            templates = state.templates(PACKAGE)
            for key in TARGET_KEYS[options.target]:
                yield from register_key_files(
                    module,
                    key,
                    templates,
                    state.views,
                    state.plan,
                    options.profile,
                    options.fragments,
                )


BACKEND = RegistrationBackend()
