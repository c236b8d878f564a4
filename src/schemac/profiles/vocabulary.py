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
    "python_factory_method_checks_dispatch": "a Tensor factory method's binding (new_empty, "
    "new_full...) initialises the device only when self has dispatch "
    "(at::impl::tensor_has_dispatch, which 2.12 and older do not declare)",
    "view_meta_owns_tensors": "ViewMeta classes keep Tensor and Scalar arguments by value, "
    "not as const references",
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
    "returns_views_of_input": "operators whose result may alias an input (besides the views)",
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
    # -- backends: functionalization and vmap -------------------------------------
    "functionalization_hand_written": "operators whose Functionalize kernel PyTorch writes by "
    "hand: their variant family (or view) gets no generated kernel or registration",
    "functionalization_out_dtype_preserving": "out= operators whose functional call takes the "
    "out tensor's dtype when no dtype is given",
    "functionalization_as_strided_views": "views whose ViewMeta says is_as_strided",
    "functionalization_hand_declared_inverses": "inverses FunctionalInverses.h declares by hand, "
    "as 'name(type arg, ...)' after base, mutated_view and inverse_return_mode",
    "vmap_non_tensor_return_ops": "operators (unambiguous names) that get vmap plumbing although "
    "a return is not tensor-like",
    # -- backends: backend_stubs (schemac coverage) -------------------------------
    "device_required_operators": "operators a PrivateUse1 device must implement itself "
    "(allocation, views, resizing, copies to and from CPU, reading a scalar, set_): no "
    "composite kernel provides them",
    "decomposition_target_tags": "tags of the operators decompositions lower to ('core')",
    # -- backends: aoti ----------------------------------------------------------
    "aoti_nullable_returns": "name fragments of operators whose AOTI shims accept null return "
    "pointers (an output the caller does not want)",
}

#: String-to-string tables.
TABLES: dict[str, str] = {
    "view_functions": "view operator -> the argument it is a view of",
    "rename_trace": "operator -> the name the tracer records",
    "kernel_export_macros": "dispatch key -> DLL export macro of its kernels (structured kernel "
    "classes only, unless per_key_export_macros)",
    "shard_counts": "file family (variable_type, trace_type, inplace_or_view, python_functions) "
    "-> how many shards the release writes",
    "aoti_fallback_ops": "operator (aten.add.Tensor) -> its versions (JSON): the AOTInductor "
    "fallback operators with per-backend C shims (c_shim_cpu.cpp ...)",
    "aoti_aten_shimified_ops": "operator -> its versions (JSON): the operators of "
    "c_shim_aten.cpp, which call through the dispatcher",
    "host_template_digests": "host template file ('aten/TensorBody.h') -> digest of the "
    "release's own text (Note [Host text of another release])",
    "view_meta_single_output_replay": "multi-output view -> how its ViewMeta rebuilds one "
    "output from the base: 'slice' (along its int dim, by its size or sizes argument) or "
    "'select' (along its int dim); a view without an entry replays the whole view and keeps "
    "one output",
}
