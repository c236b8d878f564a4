"""PyTorch's hand-kept operator lists that decide what autograd code exists.

These sets are not derivable from the YAML: they record decisions PyTorch
made elsewhere (a kernel written by hand in torch/csrc/autograd, an operator
that returns a view of its input, an operator whose outputs never require
grad).  They are facts about the operator library the generated files are
compiled into, so they live in one place here, as data, and every emitter
asks this module instead of keeping its own copy.  Names are the C++ API name
(``cpp_name``: base name with a trailing ``_`` for in-place, no overload)
unless said otherwise.
"""

from __future__ import annotations

from types import MappingProxyType

#: Methods whose backend kernel is written by hand (not registered per key).
MANUAL_BACKEND = frozenset(
    [
        "options",
        "data",
        "set_data",
        "is_leaf",
        "output_nr",
        "_version",
        "retain_grad",
        "_backward",
        "requires_grad_",
    ]
)

#: Operators whose Autograd and Tracer kernels are written by hand.
MANUAL_AUTOGRAD_AND_TRACER = frozenset(
    ["resize_", "resize_as_", "detach", "detach_", "copy_", "_fw_primal", "_make_dual"]
)

#: Operators with no generated Autograd / ADInplaceOrView / Tracer kernel.
MANUAL_AUTOGRAD = MANUAL_BACKEND | MANUAL_AUTOGRAD_AND_TRACER
MANUAL_TRACER = MANUAL_AUTOGRAD

#: Operators (by base name) the tracer runs but does not record.
DONT_RECORD_TRACE = frozenset(
    [
        "convolution",
        "conv1d",
        "conv2d",
        "conv3d",
        "conv_transpose1d",
        "conv_transpose2d",
        "conv_transpose3d",
        "lstm_cell",
        "gru_cell",
        "rnn_tanh_cell",
        "rnn_relu_cell",
        "_coalesced",
    ]
)

#: View operators whose result has different metadata (dtype, conj bit...)
#: than its base, so a view cannot be replayed with as_strided.
VIEW_FUNCTIONS_WITH_METADATA_CHANGE = frozenset(
    [
        "view_as_complex",
        "view_as_real",
        "_conj",
        "_neg_view",
        "_nested_get_values",
        "_nested_view_from_buffer",
        "_nested_view_from_jagged",
    ]
)

_VIEWS_OF_SELF = [
    "numpy_T",
    "alias",
    "as_strided",
    "diagonal",
    "expand",
    "permute",
    "select",
    "slice",
    "slice_inverse",
    "split",
    "split_with_sizes",
    "squeeze",
    "t",
    "transpose",
    "unfold",
    "unsqueeze",
    "flatten",
    "view",
    "unbind",
    "_indices",
    "_values",
    "indices",
    "values",
    "crow_indices",
    "col_indices",
    "ccol_indices",
    "row_indices",
    "_reshape_alias",
    "_test_autograd_multiple_dispatch_view",
]

#: View operator (by base name) -> the argument its output is a view of.
VIEW_FUNCTIONS: MappingProxyType[str, str] = MappingProxyType(
    {
        **{name: "self" for name in _VIEWS_OF_SELF},
        "sparse_coo_tensor_with_dims_and_tensors": "values",
        **{name: "self" for name in sorted(VIEW_FUNCTIONS_WITH_METADATA_CHANGE)},
    }
)

#: Operators (by base name) that may return a view of ``self`` without being
#: view operators in the strict sense (their result aliases only sometimes).
RETURNS_VIEWS_OF_INPUT = frozenset(VIEW_FUNCTIONS) | frozenset(
    [
        "chunk",
        "detach",
        "contiguous",
        "reshape",
        "reshape_as",
        "expand_as",
        "view_as",
        "real",
        "imag",
        "narrow",
        "movedim",
        "tensor_split",
        "swapdims",
        "swapaxes",
        "mT",
        "mH",
        "adjoint",
        "matrix_H",
    ]
)

#: Operators that reset a tensor's gradient accumulator (by schema base name).
RESET_GRAD_ACCUMULATOR = frozenset({"set_", "resize_"})
