"""Which DLL export macro a kernel declaration carries, as the target release decides.

On Windows, PyTorch builds the kernels of some dispatch keys into their own
libraries, so their declarations need that library's export macro instead of
``TORCH_API``.  Which keys, and which declarations, is release policy
(Note [Release profiles]), read from the profile:

* the table ``kernel_export_macros`` (dispatch key -> macro): ``XPU ->
  TORCH_XPU_API`` up to 2.13, empty in 2.14, every CUDA- and XPU-family key in
  2.15;
* without the feature ``per_key_export_macros`` only the *structured* kernel
  classes of ``_native.h`` use the table; every other declaration is
  ``TORCH_API``;
* with it, every ``_native.h`` declaration and every ``at::<key>::``
  declaration of ``_<key>_dispatch.h`` uses its key's macro, except the
  kernels listed in ``cpu_dll_cuda_kernels`` (defined in torch_cpu although a
  CUDA key registers them), and a kernel that several keys share is declared
  once (Note [One declaration per kernel]).
"""

from __future__ import annotations

from schemac.profiles import ReleaseProfile

DEFAULT_EXPORT = "TORCH_API"


def _per_key(profile: ReleaseProfile, key: str) -> str:
    return profile.table("kernel_export_macros").get(key, DEFAULT_EXPORT)


def structured_export(profile: ReleaseProfile, key: str, kernel: str) -> str:
    """The macro of ``struct <macro> structured_<kernel>`` for ``key``."""
    if not profile.has("per_key_export_macros"):
        return _per_key(profile, key)
    return kernel_export(profile, key, kernel)


def kernel_export(profile: ReleaseProfile, key: str, kernel: str) -> str:
    """The macro of an unstructured kernel's declaration in ``_native.h``."""
    if not profile.has("per_key_export_macros"):
        return DEFAULT_EXPORT
    if kernel in profile.names("cpu_dll_cuda_kernels"):
        return DEFAULT_EXPORT
    return _per_key(profile, key)


def dispatch_export(profile: ReleaseProfile, key: str) -> str:
    """The macro of the ``at::<key>::`` declarations in ``_<key>_dispatch.h``."""
    if not profile.has("per_key_export_macros"):
        return DEFAULT_EXPORT
    return _per_key(profile, key)


def merges_shared_kernels(profile: ReleaseProfile) -> bool:
    """Note [One declaration per kernel]: a kernel named by several keys whose
    declarations differ only in the macro is declared once, with ``TORCH_API``
    if one of them has it, else with the first key's macro."""
    return profile.has("per_key_export_macros")
