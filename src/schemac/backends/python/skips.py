"""Which operators get no generated Python binding, as data.

PyTorch binds some operators by hand (``size``, ``to``, ``item``...), keeps
others internal (backward kernels, functionalization helpers) or exposes them
as attributes rather than functions (``mT``, ``mH``).  The rules below are the
behaviour of PyTorch 2.13's Python binding generator
(``tools/autograd/gen_python_functions.py``, its skip lists and its
``should_generate_py_binding``), restated as data so they can be read, diffed
and tested on their own.  A rule matches the C++ name of an overload: the base
name, plus ``_out`` for an out= overload (``add_out``, ``abs_``).
"""

from __future__ import annotations

import re

#: Whole-name regular expressions (anchored at both ends).
SKIPPED_NAME_PATTERNS: tuple[str, ...] = (
    # Bound by hand in torch/csrc/autograd/python_variable_methods.cpp & co.
    "alias",
    "contiguous",
    "dim",
    "get_device",
    "is_contiguous",
    "is_cuda",
    "is_sparse",
    "is_sparse_csr",
    "numel",
    "size",
    "storage_offset",
    "stride",
    "sym_is_contiguous",
    "sym_size",
    "sym_stride",
    "sym_storage_offset",
    "sym_numel",
    # Autograd internals.
    ".*_backward",
    ".*_backward_(out|input|weight|bias)",
    ".*_forward",
    ".*_forward_out",
    ".*_jvp",
    "_unsafe_view",
    # Constructors with hand-written argument handling.
    "tensor",
    "_?sparse_(coo|compressed|csr|csc|bsr|bsc)_tensor.*",
    "_range.*",
    "range.*",
    # Private kernels reached only through their public wrappers.
    "_sparse_add_out",
    "_sparse_div.*",
    "_sparse_mul.*",
    "_sparse_sub.*",
    "_sparse_dense_add_out",
    "index",
    "index_out",
    "unique_dim_consecutive",
    "_cumsum.*",
    "_cumprod.*",
    "_sum.*",
    "_prod.*",
    "_th_.*",
    "_thnn_.*",
    "_solve.*",
    "_inverse.*",
    "_cholesky.*",
    "_triangular_solve.*",
    "_qr.*",
    "_svd.*",
    "slice",
    "item",
    "_local_scalar_dense",
    "to",
    "_to_copy",
    "_to_copy_out",
    "_reshape_copy",
    "_reshape_copy_out",
    "copy_sparse_to_sparse_",
    "copy_",
    "_foreach_copy",
    # Python attributes, not functions.
    "numpy_T",
    "matrix_H",
    "mT",
    "mH",
    "nonzero(_(out|numpy))?",
    "set_data",
    # Hooks for out-of-tree backends.
    ".*_overrideable",
    "data",
    "is_leaf",
    "output_nr",
    "_version",
    "requires_grad_",
    "retains_grad",
    "set_",
    "_fw_primal",
    "fake_quantize_per_tensor_affine_cachemask",
    "fake_quantize_per_channel_affine_cachemask",
    "_new_zeros_with_same_feature_meta",
    "_has_same_storage_numel",
    "_reshape_alias",
    # Functionalization helpers.
    "replace_",
    "copy",
    "fill.Tensor",
    "fill.Scalar",
    "lift.*",
    "normal_functional",
    "nbytes",
    "itemsize",
    "_batch_norm_with_update",
    "_batch_norm_with_update_out",
    "_batch_norm_no_update",
)

#: Exact schemas left unbound: the Scalar overloads of the arithmetic
#: operators, which the Tensor overloads already accept (a number converts to
#: a zero-dim tensor), so binding both would only make parsing ambiguous.
SKIPPED_SCHEMAS: frozenset[str] = frozenset(
    {
        "add.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor",
        "add_.Scalar(Tensor(a!) self, Scalar other, Scalar alpha=1) -> Tensor(a!)",
        "sub.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor",
        "sub_.Scalar(Tensor(a!) self, Scalar other, Scalar alpha=1) -> Tensor(a!)",
        "mul.Scalar(Tensor self, Scalar other) -> Tensor",
        "mul_.Scalar(Tensor(a!) self, Scalar other) -> Tensor(a!)",
        "div.Scalar(Tensor self, Scalar other) -> Tensor",
        "div_.Scalar(Tensor(a!) self, Scalar other) -> Tensor(a!)",
    }
)

#: Synthesised (``generated``-tagged) operators are not bound, except the
#: ``view_copy`` family, which was bound before it became generated.
GENERATED_TAG = "generated"
STILL_BOUND_GENERATED_TAG = "view_copy"


def _compile(patterns: tuple[str, ...]) -> re.Pattern[str]:
    return re.compile("|".join(f"(?:{p})" for p in patterns))


_SKIPPED_NAME = _compile(SKIPPED_NAME_PATTERNS)


def is_skipped_name(cpp_name: str) -> bool:
    return _SKIPPED_NAME.fullmatch(cpp_name) is not None


#: The overload names of :data:`SKIPPED_SCHEMAS` (``add.Scalar``): only a
#: function with one of these names needs its whole schema spelled and compared.
SKIPPED_SCHEMA_NAMES: frozenset[str] = frozenset(s.partition("(")[0] for s in SKIPPED_SCHEMAS)
