"""AOTInductor C shims: the C ABI that AOTInductor-compiled models call ATen through.

``aoti/c_shim_<key>.cpp`` defines, for every fallback operator of the release
(its torchgen's ``aoti/fallback_ops.py``, recorded in the release profile),
an ``extern "C"`` function per version of the operator that converts C
arguments (handles, pointers plus lengths, ints for enums) to ATen values and
calls the key's kernel (``at::cpu::...``), or, in ``c_shim_aten.cpp``, the
dispatcher (``at::...``).  torch ships the matching declarations in
``torch/csrc/inductor/aoti_torch/generated/c_shim_<key>.h``.  See docs/aoti.md.
"""
