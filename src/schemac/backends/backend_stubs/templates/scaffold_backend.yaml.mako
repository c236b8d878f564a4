# The ${view.name} device (started by `schemac backend-init ${view.name}`): a PrivateUse1 backend whose memory is host memory.
# `schemac compile --torch --backend backend.yaml -o generated` turns this into
# PrivateUse1NativeFunctions.h (the kernels csrc/kernels.cpp defines) and
# RegisterPrivateUse1.cpp.  Add kernels under supported (see `schemac coverage`).
backend: PrivateUse1
cpp_namespace: ${view.name}
supported:
# What every PrivateUse1 device must provide (see `schemac coverage`).
- empty.memory_format
- empty_strided
- as_strided
- view
- _reshape_alias
- resize_
- _copy_from
- _copy_from_and_resize
- _local_scalar_dense
- set_.source_Storage
- set_.source_Storage_storage_offset
- fill_.Scalar
- zero_
symint:
- empty.memory_format
- empty_strided
- as_strided
- view
- _reshape_alias
- resize_
- set_.source_Storage_storage_offset
