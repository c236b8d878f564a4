"""Facts about a torch release that the backend-stubs target needs, in one place.

Kept as data so that a release profile (``--torch-version``) can carry them
instead: nothing else in this package names a release.  The values are
those of torch 2.13.
"""

from __future__ import annotations

#: The release these facts describe.
RELEASE = "2.13"

#: Operators a PrivateUse1 device must implement itself for tensors to exist,
#: move and be viewed on it: allocation, views, resizing, copies to and from
#: CPU, reading a scalar, and re-pointing a tensor at a storage.  No composite
#: kernel provides them (PyTorch's PrivateUse1 documentation lists the same).
DEVICE_REQUIRED_OPERATORS: tuple[str, ...] = (
    "empty.memory_format",
    "empty_strided",
    "as_strided",
    "view",
    "_reshape_alias",
    "resize_",
    "_copy_from",
    "_copy_from_and_resize",
    "_local_scalar_dense",
    "set_.source_Storage",
    "set_.source_Storage_storage_offset",
    "set_.source_Tensor",
    "set_",
)

#: The tag of the operators decompositions lower to (tags.yaml).
CORE_TAG = "core"
