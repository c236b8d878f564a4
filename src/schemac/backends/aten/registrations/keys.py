"""What each dispatch key needs from its registration file.

A ``Register<Key>.cpp`` file looks the same for every key except for a handful
of per-key facts: which allocation functions structured kernels use for their
outputs, whether wrappers guard and check devices, which device guard a
structured class holds, and which extra headers it needs.  They are collected
here as one :class:`KeyTraits` value per key, so the emitters never compare
key names themselves and adding a backend is adding one entry (see the
"Registration backends" section of docs/backends.md).

The rules follow PyTorch's: only CUDA- and XPU-like keys guard devices in
unstructured wrappers; the keys that own an allocator (``CPU``, ``CUDA``,
``Meta``, ...) allocate structured outputs with ``at::detail::empty_<key>``;
``CompositeExplicitAutogradNonFunctional`` and the quantized backends go
through the dispatcher (``at::empty``).
"""

from __future__ import annotations

import attrs

from schemac.ir.dispatch import (
    COMPOSITE_EXPLICIT,
    COMPOSITE_EXPLICIT_NON_FUNCTIONAL,
    COMPOSITE_IMPLICIT,
    COMPOSITE_IMPLICIT_NESTED,
)
from schemac.profiles import ReleaseProfile

_CUDA_LIKE = frozenset({"CUDA", "QuantizedCUDA", "SparseCUDA", "SparseCsrCUDA", "NestedTensorCUDA"})
_XPU_LIKE = frozenset({"XPU", "SparseXPU", "SparseCsrXPU", "NestedTensorXPU", "QuantizedXPU"})
#: Keys with their own allocator (``at::detail::empty_<key>``).
_OWN_ALLOCATOR = ("Meta", "CPU", "CUDA", "MPS", "XPU", "MTIA")
_DISPATCHER_ALLOCATOR = frozenset(
    {COMPOSITE_EXPLICIT_NON_FUNCTIONAL, "QuantizedCPU", "QuantizedCUDA"}
)
#: Keys whose structured outputs may live on another device than the current one.
_GUARDED_OUTPUTS = frozenset({"CUDA", "MPS", "XPU", COMPOSITE_EXPLICIT_NON_FUNCTIONAL})
#: Keys whose per-operator ``<op>_<key>_dispatch.h`` headers exist (the
#: ``at::<key>::`` functions are declared there).
_FUNCTIONS_KEYS = frozenset(
    {
        "CPU",
        "CUDA",
        "MPS",
        "SparseMPS",
        "SparseCsrMPS",
        "XPU",
        "Meta",
        "MTIA",
        COMPOSITE_IMPLICIT,
        COMPOSITE_IMPLICIT_NESTED,
        COMPOSITE_EXPLICIT,
        COMPOSITE_EXPLICIT_NON_FUNCTIONAL,
    }
)
_CUDA_HEADERS = (
    "c10/cuda/CUDAGuard.h",
    "ATen/cuda/ATenCUDAGeneral.h",
    "ATen/cuda/CUDADevice.h",
    "ATen/cuda/CUDAContext.h",
)
_EMPTY_HEADER = {
    "CPU": "ATen/EmptyTensor.h",
    "Meta": "ATen/EmptyTensor.h",
    "CUDA": "ATen/cuda/EmptyTensor.h",
    "MPS": "ATen/mps/EmptyTensor.h",
    "XPU": "ATen/xpu/EmptyTensor.h",
    "MTIA": "ATen/native/mtia/EmptyTensor.h",
}
#: Keys without an allocator of their own reach one through these operators.
_GENERIC_EMPTY_HEADERS = (
    "ATen/ops/empty.h",
    "ATen/ops/empty_strided.h",
    "ATen/ops/_copy_from_and_resize.h",
    "ATen/ops/_copy_from.h",
)


#: Where ``namedinference::propagate_names`` is declared.
NAMED_TENSOR_UTILS = "ATen/NamedTensorUtils.h"


@attrs.frozen
class KeyTraits:
    key: str
    #: ``at::<namespace>::add``: the direct-call namespace of the key.
    namespace: str
    #: Unstructured wrappers check devices and install a device guard.
    device_guard: bool
    #: Factory wrappers initialise the CUDA runtime first.
    cuda_like: bool
    #: ``empty`` / ``empty_strided`` used to allocate structured outputs.
    empty: str | None
    empty_strided: str | None
    #: The guard member of structured classes (``c10::OptionalDeviceGuard guard_;``).
    structured_guard: str | None
    #: ``set_output_*`` moves the guard to the output's device.
    guarded_outputs: bool
    #: The file defines create_out / resize_out / check_inplace / maybe_create_proxy.
    has_helpers: bool
    has_functions_header: bool
    #: Headers the file needs beyond the common ones, in order.
    extra_headers: tuple[str, ...]
    #: ``set_output_*`` take the outputs' ``DimnameList names`` and propagate
    #: them (releases with named tensors: profile feature ``structured_output_names``).
    output_names: bool = False

    def for_release(self, profile: ReleaseProfile) -> KeyTraits:
        """These traits as the target release's structured kernels need them."""
        if not profile.has("structured_output_names"):
            return self
        return attrs.evolve(
            self, output_names=True, extra_headers=(*self.extra_headers, NAMED_TENSOR_UTILS)
        )

    @property
    def is_meta(self) -> bool:
        return self.key == "Meta"

    @property
    def is_composite_non_functional(self) -> bool:
        return self.key == COMPOSITE_EXPLICIT_NON_FUNCTIONAL


def key_traits(key: str) -> KeyTraits:
    empty = empty_strided = None
    if key in _OWN_ALLOCATOR:
        empty, empty_strided = (
            f"at::detail::empty_{key.lower()}",
            f"at::detail::empty_strided_{key.lower()}",
        )
    elif key in _DISPATCHER_ALLOCATOR:
        empty, empty_strided = "at::empty", "at::empty_strided"

    guard: str | None = None
    if key == "CUDA":
        guard = "c10::cuda::OptionalCUDAGuard guard_;"
    elif key in ("MPS", "XPU", "MTIA", COMPOSITE_EXPLICIT_NON_FUNCTIONAL):
        guard = "c10::OptionalDeviceGuard guard_;"

    extra: tuple[str, ...] = _CUDA_HEADERS if key in _CUDA_LIKE else ()
    extra += ("ATen/ops/as_strided_native.h",)
    extra += (_EMPTY_HEADER[key],) if key in _EMPTY_HEADER else _GENERIC_EMPTY_HEADERS
    extra += ("c10/macros/Macros.h",)

    return KeyTraits(
        key=key,
        namespace=key.lower(),
        device_guard=key in _CUDA_LIKE or key in _XPU_LIKE,
        cuda_like=key in _CUDA_LIKE,
        empty=empty,
        empty_strided=empty_strided,
        structured_guard=guard,
        guarded_outputs=key in _GUARDED_OUTPUTS,
        # The nested-tensor composite key has no structured kernels; its file
        # would define helpers nobody calls (an error under -Werror).
        has_helpers=key != COMPOSITE_IMPLICIT_NESTED,
        has_functions_header=key in _FUNCTIONS_KEYS,
        extra_headers=extra,
    )
