"""The names a derivative formula may use besides its own variables.

Formulas are C++ expressions compiled inside PyTorch's autograd library, where
three kinds of free names are in scope: the helpers of
``torch/csrc/autograd/FunctionsManual.h`` (``mul_tensor_backward``,
``wrap_opt_if``...), every ATen operator (unqualified, with an optional
``_symint`` suffix) and a handful of C++ types and constants.  The formula
checker accepts a name from these sets and reports anything else with a
did-you-mean hint, so a typo in derivatives.yaml fails here, with a position,
instead of in a C++ compiler hours later.

The helper list is PyTorch 2.13's; a library with its own helpers passes them
to the pass as ``extra_helpers``.
"""

from __future__ import annotations

#: Functions declared by PyTorch's autograd runtime for use in formulas.
AUTOGRAD_HELPERS: frozenset[str] = frozenset(
    {
        "IntArrayRef", "Tensor", "TensorGeometry", "_convolution_jvp",
        "_cudnn_convolution_backward", "_cudnn_ctc_loss_backward",
        "_euclidean_dist_backward", "_fused_dropout_backward", "_grouped_mm_mat1_backward",
        "_grouped_mm_mat2_backward", "_miopen_ctc_loss_backward",
        "_nested_from_padded_backward", "_nested_split_with_sizes_backward", "_safe_size",
        "_to_copy_backward", "_trilinear_backward", "amaxamin_jvp", "aminmax_backward",
        "aminmax_jvp", "angle_backward", "any_variable_defined", "apply_loss_reduction",
        "as_strided_backward", "as_strided_scatter_backward", "atan2_backward",
        "batch_norm_jvp", "batchnorm_double_backward",
        "binary_cross_entropy_double_backward",
        "binary_cross_entropy_double_backward_grad_output",
        "binary_cross_entropy_double_backward_target",
        "binary_cross_entropy_target_backward", "binary_cross_entropy_with_logits_backward",
        "binary_cross_entropy_with_logits_target_backward", "block_diag_backward",
        "block_diag_jvp", "cat_jvp", "cat_tensors_backward", "cholesky_backward",
        "cholesky_inverse_backward", "cholesky_inverse_jvp", "cholesky_jvp",
        "cholesky_solve_backward", "cholesky_solve_jvp", "chunk_backward_nested",
        "clamp_backward", "clamp_backward_min_max", "clamp_jvp", "constant_pad_nd_backward",
        "convolution_backward_jvp_grad_bias", "convolution_jvp", "copy_range",
        "copysign_tensor_self_backward", "cumprod_jvp", "cumsum_backward",
        "deg2rad_backward", "div_tensor_other_backward", "div_tensor_self_backward",
        "elu_double_backward", "embedding_dense_double_backward_symint",
        "error_for_max_pool2d_double_backward", "evenly_distribute_backward",
        "evenly_read_jvp", "fft_backward", "fft_c2r_backward", "fft_r2c_backward", "fmap",
        "gather_with_keepdimed_indices", "gelu_double_backward", "glu_double_backward",
        "glu_double_backward_grad_output", "grid_sampler_2d_double_backward",
        "grid_sampler_3d_double_backward", "group_norm_invstd_jvp", "group_norm_jvp",
        "group_norm_mean_jvp", "handle_r_to_c", "householder_product_backward",
        "householder_product_jvp", "huber_loss_double_backward",
        "huber_loss_double_backward_grad_output", "i1_backward", "i1e_backward",
        "index_backward", "index_reduce_backward",
        "infinitely_differentiable_logit_backward",
        "infinitely_differentiable_mish_backward",
        "infinitely_differentiable_native_dropout_backward",
        "infinitely_differentiable_native_group_norm_backward",
        "infinitely_differentiable_native_rms_norm_backward",
        "infinitely_differentiable_silu_backward", "layer_norm_double_backward",
        "layer_norm_jvp", "linalg_det_backward", "linalg_det_jvp", "linalg_eig_backward",
        "linalg_eig_jvp", "linalg_lstsq_backward", "linalg_lstsq_residuals_jvp",
        "linalg_lstsq_solution_jvp", "linalg_lu_backward", "linalg_lu_jvp",
        "linalg_lu_solve_LU", "linalg_lu_solve_jvp", "linalg_matrix_exp_differential",
        "linalg_qr_backward", "linalg_qr_jvp", "linalg_solve_backward", "linalg_solve_jvp",
        "linalg_solve_triangular_backward", "linalg_solve_triangular_forward_AD",
        "linalg_svd_jvp", "linalg_vector_norm_backward", "linalg_vector_norm_jvp",
        "linear_double_backward", "log1p_backward", "log_sigmoid_double_backward",
        "logcumsumexp_backward", "logcumsumexp_jvp", "logsumexp_backward", "logsumexp_jvp",
        "lu_factor_ex_backward", "lu_factor_ex_jvp", "lu_unpack_backward",
        "masked_fill_backward", "max_pool_double_backward", "maybe_multiply",
        "mean_backward", "mkldnn_rnn_layer_differentiable_backward", "mm_mat1_backward",
        "mm_mat1_sparse_backward", "mm_mat2_backward", "mse_loss_double_backward",
        "mul_tensor_backward", "mvlgamma_backward", "nansum_backward",
        "native_dropout_double_backward", "norm_backward", "norm_jvp", "not_implemented",
        "not_implemented_list", "ormqr_backward", "permute_backwards", "pinv_backward",
        "pinv_jvp", "polar_backward", "pow_backward", "pow_backward_exponent",
        "pow_backward_self", "prod_backward", "prod_safe_zeros_backward",
        "rad2deg_backward", "range", "renorm_backward", "renorm_jvp", "repeat_backward",
        "restore_reduced_dims", "reverse_dim", "reverse_list", "reverse_list_symint",
        "rms_norm_jvp", "rms_norm_rstd_jvp", "safe_logsumexp_jvp", "scale_grad_by_count",
        "scatter_reduce_backward", "scatter_reduce_jvp", "sgn_backward", "sinc_backward",
        "size", "slice_backward_wrapper", "slogdet_backward", "slogdet_jvp",
        "smooth_l1_loss_double_backward", "soft_margin_loss_double_backward",
        "soft_margin_loss_double_backward_grad_output", "softmax_double_backward",
        "softplus_double_backward", "solve_backward_A", "solve_backward_self", "solve_jvp",
        "sparse_constructor_values_backward", "sparse_mask_backward",
        "sparse_sampled_addmm_backward", "sparse_sparse_matmul_backward", "split_backward",
        "split_with_sizes_backward", "stack_jvp", "stack_tensors_backward", "std_backward",
        "std_mean_backward", "strides_or_error", "sum_backward", "svd_backward",
        "take_backward", "toNonOptFwGrad", "toNonOptPrimal", "toNonOptTensor",
        "to_args_scalartypes", "to_args_sizes", "to_args_sizes_symint",
        "to_sparse_backward", "triangular_solve_backward", "triangular_solve_jvp",
        "unbind_backward", "unbind_backward_nested", "unbind_backward_nested_jagged",
        "unsqueeze_multiple", "unsqueeze_to", "update_wrapped_number", "values_backward",
        "var_backward", "var_jvp", "var_mean_backward", "warn_backwards", "wrap_opt_if",
    }
)

#: C++ types that formulas construct or name as template arguments.
CPP_TYPES: frozenset[str] = frozenset(
    {
        "Device", "Generator", "IntArrayRef", "Layout", "MemoryFormat", "Scalar",
        "ScalarType", "SymInt", "SymIntArrayRef", "Tensor", "TensorGeometry", "TensorList",
        "TensorOptions", "bool", "double", "float", "int", "int32_t", "int64_t", "optional",
        "size_t", "string", "tuple", "uint64_t", "vector",
    }
)

#: C++ keywords and constants that may appear as free names.
CPP_WORDS: frozenset[str] = frozenset(
    {
        "M_2_SQRTPI", "M_E", "M_LN2", "M_PI", "M_SQRT1_2", "M_SQRT2", "auto", "const",
        "false", "kCudnnDoubleBackwardMsg", "nullptr", "return", "sizeof", "static_cast",
        "this", "true",
    }
)
