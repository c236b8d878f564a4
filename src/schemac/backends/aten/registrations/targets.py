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
from schemac.backends.aten.registrations.keys import key_traits
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


def registration_slice(module: Module, options: EmitOptions) -> object:
    """What the registration files of ``options.target`` are made from.

    Note [Registration slices]
    ~~~~~~~~~~~~~~~~~~~~~~~~~~
    A unit's slice (Note [Unit slices] in :mod:`schemac.backends.reuse`).  The
    files of one key (:func:`~.register_key.register_key_files`) are laid out
    from :func:`~.plan.plan_key`'s items, each item's wrappers rendered from
    its grouped item alone (the same inputs as its fragment: the key, the
    ``ItemSource``, the selective build's registered flags), the key's traits
    and helpers (the key and the release profile), the view cache (a pure
    function of each schema) and the banner's provenance (the path of
    ``native_functions.yaml`` and the release).  ``plan_key`` reads an item
    only if :func:`~.plan.may_plan` says so (both read
    :attr:`~.plan.ItemSource.may_keys`): for a plain key, the items with
    a kernel for it (``RegisterCUDA.cpp`` never sees a
    ``CompositeImplicitAutograd`` operator); Meta also every structured group
    and in-place function, CompositeExplicitAutogradNonFunctional every
    structured group.  The items of each key, in module order (the shards
    and the order follow from them), with the selected names and the
    provenance, are the slice.  Nothing else of the module is read by the
    emitters (``wrappers``, ``structured``, ``translate`` and ``helpers``
    take a wrapper, the traits and the views, not the module).
    """
    index = aten_run_state(module, options).plan
    per_key = []
    for key in TARGET_KEYS[options.target]:
        traits = key_traits(key)
        per_key.append((key, index.candidates(traits)))
    selected = None if module.selection is None else module.selection.selected
    return (module.sources.native_functions, module.release, selected, tuple(per_key))


BACKEND = RegistrationBackend()
