${banner}
// Kernels of the Functionalize key: mutations become calls of functional
// operators, views become copies plus the metadata to replay them.
#define TORCH_ASSERT_ONLY_METHOD_OPERATORS

#include <algorithm>

#include <ATen/FunctionalTensorWrapper.h>
#include <ATen/ViewMetaClasses.h>
#include <ATen/core/LegacyTypeDispatch.h>
#include <c10/util/env.h>
#include <c10/util/irange.h>
#include <torch/library.h>

#ifndef AT_PER_OPERATOR_HEADERS
#include <ATen/NativeFunctions.h>
#include <ATen/Operators.h>
#else
#include <ATen/ops/empty_strided_native.h>
% for header in view.headers:
#include <${header}>
% endfor
#endif

namespace at {
namespace functionalization {
namespace {

// Meta tensors are run through an operator only to learn its output's
// metadata: no functorch transform, Python mode or pre-dispatch tracing may
// see those calls.
constexpr c10::DispatchKeySet meta_reference_excluded_keys =
    c10::functorch_transforms_ks |
    c10::DispatchKeySet({
        c10::DispatchKey::FuncTorchDynamicLayerBackMode,
        c10::DispatchKey::FuncTorchDynamicLayerFrontMode,
        c10::DispatchKey::Python,
        c10::DispatchKey::PreDispatch,
    });

bool meta_reference_disabled() {
  static const bool disabled =
      c10::utils::get_env("TORCH_DISABLE_FUNCTIONALIZATION_META_REFERENCE") == "1";
  return disabled;
}

// A meta tensor with the sizes, strides and dtype of `t` (undefined stays undefined).
at::Tensor to_meta(const at::Tensor& t) {
  if (!t.defined()) {
    return t;
  }
  return at::native::empty_strided_meta_symint(
      t.sym_sizes(), t.sym_strides(), t.scalar_type(), t.layout(),
      c10::Device(c10::kMeta), /*pin_memory=*/::std::nullopt);
}

::std::optional<at::Tensor> to_meta(const ::std::optional<at::Tensor>& t) {
  if (!t.has_value()) {
    return ::std::nullopt;
  }
  return to_meta(*t);
}

::std::vector<at::Tensor> to_meta(at::ITensorListRef tensors) {
  ::std::vector<at::Tensor> metas;
  metas.reserve(tensors.size());
  for (const auto& t : tensors) {
    metas.push_back(to_meta(t));
  }
  return metas;
}

c10::List<at::Tensor> to_meta(const c10::List<at::Tensor>& tensors) {
  c10::List<at::Tensor> metas;
  metas.reserve(tensors.size());
  for (const auto i : c10::irange(tensors.size())) {
    metas.push_back(to_meta(tensors[i]));
  }
  return metas;
}

c10::List<::std::optional<at::Tensor>> to_meta(
    const c10::List<::std::optional<at::Tensor>>& tensors) {
  c10::List<::std::optional<at::Tensor>> metas;
  metas.reserve(tensors.size());
  for (const auto i : c10::irange(tensors.size())) {
    metas.push_back(to_meta(tensors[i]));
  }
  return metas;
}

% for kernel in view.kernels:
${kernel}

% endfor
% for namespace, lines in view.registrations:
TORCH_LIBRARY_IMPL(${namespace}, Functionalize, m) {
% for line in lines:
  ${line}
% endfor
}

% endfor
} // namespace
} // namespace functionalization
} // namespace at
