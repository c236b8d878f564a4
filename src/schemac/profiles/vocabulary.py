"""Every name a release profile may carry, with what it means.

A profile's JSON may only use names declared here, and code may only ask for
them (:class:`~schemac.profiles.model.ReleaseProfile` raises on anything
else), so the meaning of each switch is written down once.  Adding one: add
a line here, teach ``tools/extract_profile.py`` where the release keeps it,
and regenerate the data files (docs/profiles.md).
"""

from __future__ import annotations

#: Feature switches: behaviours a release's generator has or lacks.
FEATURES: dict[str, str] = {
    "node_creation_hooks": "VariableType kernels call fire_node_creation_hooks on each new grad_fn",
    "tensor_is_variable": "TensorBody.h still declares Tensor::is_variable()",
    "register_hook_sfinae": "TensorBody.h keeps the SFINAE-constrained register_hook overloads",
    "per_key_export_macros": "native and dispatch headers export kernels with their key's DLL "
    "macro (TORCH_CUDA_CPP_API, TORCH_XPU_API) instead of TORCH_API",
    "autograd_node_intrusive_ptr": "grad_fn nodes are held by c10::intrusive_ptr (before 2.13: "
    "std::shared_ptr, made with deleteNode)",
    "structured_output_names": "a structured kernel's set_output_* takes a trailing "
    "DimnameList names (2.12 and older, with named tensors)",
    "python_method_has_torch_function": "a Python method without arguments tests "
    "has_torch_function(self_) (before 2.13: check_has_torch_function(self_), the only one the "
    "older headers declare)",
}

#: Name lists (operator names, type names, header names...).
LISTS: dict[str, str] = {
    # -- front end -------------------------------------------------------------
    "base_types": "base types the schema language of the release knows (model.py BaseTy)",
    "dispatch_keys": "dispatch keys the release's model knows (model.py DispatchKey)",
    # -- passes ----------------------------------------------------------------
    "random_name_exemptions": "substrings that keep a name containing 'rand' from looking random",
    "dropout_not_random": "base names of dropout operators that are not random",
    "keyword_argument_exceptions": "'operator:argument' pairs allowed a Python keyword as name",
    "autograd_helpers": "functions FunctionsManual.h and VariableTypeUtils.h declare for formulas",
    # -- backends: autograd ----------------------------------------------------
    "gradient_implemented_for_complex": "operators whose autograd supports complex inputs",
    "gradient_implemented_for_sparse_complex": "the same, for sparse complex inputs",
    "manual_backend": "operators whose VariableType/TraceType kernels are written by hand",
    "manual_autograd_and_tracer": "operators with hand-written autograd and tracer kernels",
    "dont_record_trace": "operators the tracer does not record",
    "dont_require_derivative": "operators that need no derivatives.yaml entry",
    "reset_grad_accumulator": "in-place operators that reset the grad accumulator",
    "view_functions_with_metadata_change": "view operators that change tensor metadata",
    "dont_enforce_same_tensor_impl_or_storage": "operators exempt from the debug storage checks",
    "dont_enforce_tensor_impl_use_count": "operators exempt from the debug use-count check",
    "dont_enforce_storage_impl_use_count": "operators exempt from the storage use-count check",
    # -- backends: python ------------------------------------------------------
    "python_skipped_name_patterns": "regular expressions of operator names Python does not bind",
    "python_skipped_schemas": "schemas Python does not bind",
    # -- backends: aten ----------------------------------------------------------
    "cpu_dll_cuda_kernels": "CUDA-key kernels defined in torch_cpu (exported with TORCH_API)",
    # -- out-variant synthesis ---------------------------------------------------
    "out_ops_that_dont_get_grouped_properly": "out= operators left out of groups",
    "inplace_ops_that_dont_get_grouped_properly": "in-place operators left out of groups",
    "mutable_ops_that_cannot_get_an_out_variant": "mutable operators without a generated out=",
    "functional_ops_that_cannot_get_an_out_variant": "functional operators without an out=",
    "mutable_ops_not_using_functionalization": "mutable operators functionalization leaves alone",
}

#: String-to-string tables.
TABLES: dict[str, str] = {
    "view_functions": "view operator -> the argument it is a view of",
    "rename_trace": "operator -> the name the tracer records",
    "shard_counts": "file family (variable_type, trace_type, inplace_or_view, python_functions) "
    "-> how many shards the release writes",
}
