"""The file-local functions structured wrapper classes call.

``create_out`` allocates a functional output, ``resize_out`` fits an out=
argument to the computed shape (restriding it only when it was resized, so a
user's preexisting layout is kept otherwise), ``check_inplace`` rejects an
in-place call whose result would not fit ``self``, and ``maybe_create_proxy``
makes the temporary used when a kernel needs strides an output lacks.  They
depend on the key only through its allocation functions (see
:class:`~.keys.KeyTraits`), and a key that cannot allocate gets none of the
allocating ones.
"""

from __future__ import annotations

from schemac.backends.aten.registrations.cpp import block
from schemac.backends.aten.registrations.keys import KeyTraits

_SHAPE_PARAMS = "IntArrayRef sizes, IntArrayRef strides, const TensorOptions &options"


def _create_out(traits: KeyTraits) -> str | None:
    if traits.empty is None or traits.empty_strided is None:
        return None
    options = "options.device(at::kMeta)" if traits.is_meta else "options"
    return block(
        f"Tensor create_out({_SHAPE_PARAMS})",
        [
            "if (strides.empty()) {",
            f"  return {traits.empty}(sizes, {options});",
            "} else {",
            f"  return {traits.empty_strided}(sizes, strides, {options});",
            "}",
        ],
    )


def _resize_out(traits: KeyTraits) -> str | None:
    if traits.is_composite_non_functional:
        return None  # this key never gets out= wrappers; an unused helper breaks -Werror builds
    return block(
        f"void resize_out(const Tensor &out, {_SHAPE_PARAMS})",
        [
            "TORCH_CHECK(options.dtype() == out.dtype(),",
            '    "Expected out tensor to have dtype ", options.dtype(), ", but got ", out.dtype(),'
            ' " instead");',
            "TORCH_CHECK(options.device() == out.device(),",
            '    "Expected out tensor to have device ", options.device(),'
            ' ", but got ", out.device(), " instead");',
            "const bool resized = at::native::resize_output(out, sizes);",
            "// The meta function's strides are advisory: a tensor that was not",
            "// resized keeps the strides the caller gave it.",
            "if (resized) {",
            "  if (!strides.empty()) {",
            "    TORCH_INTERNAL_ASSERT(!options.memory_format_opt().has_value());",
            "    out.as_strided_(sizes, strides);",
            "  } else if (options.memory_format_opt().has_value()) {",
            "    out.unsafeGetTensorImpl()->empty_tensor_restride(*options.memory_format_opt());",
            "  }",
            "}",
        ],
    )


def _check_inplace() -> str:
    return block(
        "void check_inplace(const Tensor &self, IntArrayRef sizes, const TensorOptions &options)",
        [
            "// TensorIterator-based kernels check these themselves; others (addmm,",
            "// cumsum with its own typing rules) rely on this.",
            "TORCH_CHECK(options.dtype() == self.dtype(),",
            '    "Bad in-place call: ",',
            '    "input tensor dtype ", self.dtype(),'
            ' " and output tensor dtype ", options.dtype(), " should match");',
            "TORCH_CHECK(options.device() == self.device(),",
            '    "Bad in-place call: ",',
            '    "input tensor device ", self.device(),'
            ' " and output tensor device ", options.device(), " should match");',
            "TORCH_CHECK(sizes == self.sizes(),",
            '    "Bad in-place call: ",',
            '    "input tensor size ", self.sizes(),'
            ' " and output tensor size ", sizes, " should match");',
        ],
    )


def _maybe_create_proxy(traits: KeyTraits) -> str | None:
    if traits.empty_strided is None:
        return None
    return block(
        f"std::optional<Tensor> maybe_create_proxy(const Tensor &out, {_SHAPE_PARAMS})",
        [
            "if (out.strides() != strides) {",
            f"  return {traits.empty_strided}(sizes, strides, options);",
            "}",
            "return std::nullopt;",
        ],
    )


def helper_functions(traits: KeyTraits) -> tuple[str, ...]:
    if not traits.has_helpers:
        return ()
    found = (
        _create_out(traits),
        _resize_out(traits),
        _check_inplace(),
        _maybe_create_proxy(traits),
    )
    return tuple(text for text in found if text is not None)
