"""Dispatch keys: the names a ``dispatch:`` table may use.

A key names a backend (``CPU``), a functionality bundled with a backend
(``SparseCUDA``, ``QuantizedMeta``) or an alias that stands for many keys
(``CompositeImplicitAutograd``).  The set below is the dispatcher's vocabulary as
of PyTorch 2.13; a key outside it is an input error with a did-you-mean hint.
"""

from __future__ import annotations

_BACKENDS = (
    "CPU",
    "CUDA",
    "HIP",
    "XLA",
    "MTIA",
    "MPS",
    "IPU",
    "XPU",
    "HPU",
    "VE",
    "Lazy",
    "Meta",
    "PrivateUse1",
    "PrivateUse2",
    "PrivateUse3",
)
_FUNCTIONALITIES = ("Quantized", "Sparse", "SparseCsr", "NestedTensor", "Autograd")

_OTHER_KEYS = (
    "Undefined",
    "FPGA",
    "MAIA",
    "Vulkan",
    "Metal",
    "MKLDNN",
    "OpenGL",
    "OpenCL",
    "IDEEP",
    "CustomRNGKeyId",
    "MkldnnCPU",
    "Sparse",
    "SparseCsr",
    "NestedTensor",
    "Dense",
    "PythonTLSSnapshot",
    "PreDispatch",
    "PythonDispatcher",
    "Python",
    "FuncTorchDynamicLayerBackMode",
    "ZeroTensor",
    "Conjugate",
    "Negative",
    "BackendSelect",
    "Named",
    "AutogradOther",
    "AutogradFunctionality",
    "AutogradNestedTensor",
    "Tracer",
    "Autocast",
    "AutocastCPU",
    "AutocastCUDA",
    "AutocastXPU",
    "Batched",
    "VmapMode",
    "FuncTorchGradWrapper",
    "FuncTorchBatched",
    "BatchedNestedTensor",
    "FuncTorchVmapMode",
    "FuncTorchDynamicLayerFrontMode",
    "Functionalize",
    "TESTING_ONLY_GenericWrapper",
    "TESTING_ONLY_GenericMode",
    "ADInplaceOrView",
    "Autograd",
    "FuncTorchBatchedDecomposition",
)

COMPOSITE_IMPLICIT = "CompositeImplicitAutograd"
COMPOSITE_IMPLICIT_NESTED = "CompositeImplicitAutogradNestedTensor"
COMPOSITE_EXPLICIT = "CompositeExplicitAutograd"
COMPOSITE_EXPLICIT_NON_FUNCTIONAL = "CompositeExplicitAutogradNonFunctional"

#: Alias keys that stand for a set of runtime keys.
COMPOSITE_KEYS = (
    COMPOSITE_IMPLICIT,
    COMPOSITE_IMPLICIT_NESTED,
    COMPOSITE_EXPLICIT,
    COMPOSITE_EXPLICIT_NON_FUNCTIONAL,
)

#: Every dispatch key name the dispatcher knows.
KNOWN_DISPATCH_KEYS: frozenset[str] = frozenset(
    (
        *_OTHER_KEYS,
        *COMPOSITE_KEYS,
        *_BACKENDS,
        *(f + b for f in _FUNCTIONALITIES for b in _BACKENDS),
    )
)

#: Keys that may hold structured kernels (``structured: True``).
STRUCTURED_DISPATCH_KEYS = frozenset({"CPU", "CUDA", "XPU", "MPS", "MTIA"})

#: Keys whose kernels ``ufunc_inner_loop`` generates.
UFUNC_DISPATCH_KEYS = frozenset({"CPU", "CUDA"})

#: The keys that get registration files, in the order the dispatcher lists them.
CODEGEN_DISPATCH_KEYS: tuple[str, ...] = (
    "CPU",
    "SparseCPU",
    "SparseCsrCPU",
    "MkldnnCPU",
    "CUDA",
    "MPS",
    "XPU",
    "SparseXPU",
    "SparseCsrXPU",
    "SparseCUDA",
    "SparseCsrCUDA",
    "SparseMPS",
    "SparseCsrMPS",
    "QuantizedCPU",
    "QuantizedCUDA",
    COMPOSITE_IMPLICIT,
    COMPOSITE_IMPLICIT_NESTED,
    COMPOSITE_EXPLICIT,
    COMPOSITE_EXPLICIT_NON_FUNCTIONAL,
    "NestedTensorCPU",
    "NestedTensorCUDA",
    "NestedTensorXPU",
    "NestedTensorHPU",
    "Meta",
    "SparseMeta",
    "SparseCsrMeta",
    "QuantizedMeta",
    "NestedTensorMeta",
    "ZeroTensor",
    "MTIA",
)


def is_known_dispatch_key(name: str) -> bool:
    return name in KNOWN_DISPATCH_KEYS
