#pragma once
${banner}
// torch:: factory functions that set requires_grad on their result: see
// factories.py.

#include <ATen/TracerMode.h>
#include <ATen/core/Tensor.h>
#include <ATen/core/grad_mode.h>
#include <c10/core/MemoryFormat.h>
#include <c10/util/ArrayRef.h>
#include <torch/csrc/api/include/torch/detail/TensorDataContainer.h>
#include <torch/csrc/autograd/variable.h>

#ifndef AT_PER_OPERATOR_HEADERS
#include <ATen/Functions.h>
#else
#include <ATen/ops/from_blob.h>
% for header in view.headers:
#include <ATen/ops/${header}.h>
% endfor
#endif

#include <functional>
#include <initializer_list>
#include <utility>

namespace torch {

/// A tensor from (nested) braced lists or ArrayRefs of values, with the
/// dtype rules of Python's torch.tensor (floating point: the default dtype;
/// integers: int64).  options.requires_grad() makes the result a leaf that
/// requires grad.
inline at::Tensor tensor(detail::TensorDataContainer tensor_data_container, const at::TensorOptions& options = {}) {
  // The kernels below never see requires_grad: it is set on the result.
  return autograd::make_variable(
      tensor_data_container.convert_to_tensor(options.requires_grad(::std::nullopt)),
      options.requires_grad());
}

using Deleter = std::function<void(void*)>;
using at::MemoryFormat;

namespace detail {
// Wraps memory the caller owns; neither autograd nor the tracer may see the
// ATen call, only the resulting leaf.
template <typename MakeTensor>
at::Tensor wrap_blob(const at::TensorOptions& options, MakeTensor make_tensor) {
  at::Tensor tensor = [&]() {
    at::AutoDispatchBelowAutograd guard;
    at::tracer::impl::NoTracerDispatchMode tracer_guard;
    return make_tensor(options.requires_grad(::std::nullopt));
  }();
  return autograd::make_variable(tensor, options.requires_grad());
}
} // namespace detail

/// A tensor viewing `data` (not copied) with the given sizes and strides;
/// `deleter` is called on `data` when the tensor's storage is freed.
inline at::Tensor from_blob(
    void* data,
    at::IntArrayRef sizes,
    at::IntArrayRef strides,
    const Deleter& deleter,
    const at::TensorOptions& options = at::TensorOptions()) {
  return detail::wrap_blob(options, [&](const at::TensorOptions& opts) {
    return at::from_blob(data, sizes, strides, deleter, opts);
  });
}

/// As above, without a deleter: the caller keeps `data` alive.
inline at::Tensor from_blob(
    void* data,
    at::IntArrayRef sizes,
    at::IntArrayRef strides,
    const at::TensorOptions& options = at::TensorOptions()) {
  return detail::wrap_blob(options, [&](const at::TensorOptions& opts) {
    return at::from_blob(data, sizes, strides, opts);
  });
}

/// Contiguous strides, with a deleter.
inline at::Tensor from_blob(
    void* data,
    at::IntArrayRef sizes,
    const Deleter& deleter,
    const at::TensorOptions& options = at::TensorOptions()) {
  return detail::wrap_blob(options, [&](const at::TensorOptions& opts) {
    return at::from_blob(data, sizes, deleter, opts);
  });
}

/// Contiguous strides, without a deleter.
inline at::Tensor from_blob(
    void* data,
    at::IntArrayRef sizes,
    const at::TensorOptions& options = at::TensorOptions()) {
  return detail::wrap_blob(options, [&](const at::TensorOptions& opts) {
    return at::from_blob(data, sizes, opts);
  });
}

<%include file="factory_wrappers.mako"/>

} // namespace torch
