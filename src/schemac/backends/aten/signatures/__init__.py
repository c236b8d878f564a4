"""Signature views: how one operator looks in each of ATen's C++ APIs.

A view is computed once per operator from the IR and then only read; the
header and registration emitters consume views and never translate schema
types themselves.  One module per view:

* :mod:`.cpp_api`: ``at::add`` / ``Tensor::add`` (plain, faithful, symint);
* :mod:`.dispatcher`: ``at::_ops::add_Tensor::call`` (schema order, symbolic);
* :mod:`.native`: ``at::native::<kernel>`` declarations;
* :mod:`.structured`: ``meta()`` / ``impl()`` of structured kernels;

built on :mod:`.cxx_types` (the C++ type model), :mod:`.type_map` (schema
type -> C++ type), :mod:`.defaults`, :mod:`.naming` and :mod:`.conventions`.
"""

from schemac.backends.aten.signatures.conventions import Conventions
from schemac.backends.aten.signatures.cpp_api import (
    CppSignature,
    CppSignatureGroup,
    cpp_signature,
    cpp_signature_group,
    cpp_signature_group_of,
    has_symint,
)
from schemac.backends.aten.signatures.cxx_types import CType, Param
from schemac.backends.aten.signatures.dispatcher import (
    DispatcherSignature,
    dispatcher_signature,
    dispatcher_signature_of,
)
from schemac.backends.aten.signatures.native import (
    NativeSignature,
    kernel_is_symint,
    native_signature,
    native_signature_of,
)
from schemac.backends.aten.signatures.signature import Signature
from schemac.backends.aten.signatures.structured import (
    StructuredImpl,
    StructuredMeta,
    structured_impl,
    structured_meta,
)

__all__ = [
    "CType",
    "Conventions",
    "CppSignature",
    "CppSignatureGroup",
    "DispatcherSignature",
    "NativeSignature",
    "Param",
    "Signature",
    "StructuredImpl",
    "StructuredMeta",
    "cpp_signature",
    "cpp_signature_group",
    "cpp_signature_group_of",
    "dispatcher_signature",
    "dispatcher_signature_of",
    "has_symint",
    "kernel_is_symint",
    "native_signature",
    "native_signature_of",
    "structured_impl",
    "structured_meta",
]
