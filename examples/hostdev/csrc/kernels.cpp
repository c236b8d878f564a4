// The kernels of hostdev, declared by schemac in PrivateUse1NativeFunctions.h
// (generated from ../backend.yaml; `schemac compile --impl-path` checks that
// every one is defined here).
//
// A hostdev tensor's memory is host memory, so a kernel computes by viewing
// its arguments as CPU tensors over the same bytes and calling the CPU
// implementation.  Views, resizing and allocation keep the device's own
// storage; the compute kernels write their CPU result into a fresh device
// tensor.

#include "PrivateUse1NativeFunctions.h"
#include "device.h"

#include <ATen/ATen.h>
#include <ATen/EmptyTensor.h>
#include <ATen/NativeFunctions.h>
#include <torch/csrc/autograd/custom_function.h>

namespace hostdev {
namespace {

const c10::DispatchKeySet kKeys(c10::DispatchKey::PrivateUse1);

bool on_device(const at::Tensor& t) {
  return t.defined() && t.device().type() == c10::DeviceType::PrivateUse1;
}

// A CPU tensor over the same memory as `t` (CPU tensors are returned as they are).
at::Tensor host(const at::Tensor& t) {
  if (!on_device(t)) {
    return t;
  }
  auto options = t.options().device(at::kCPU).requires_grad(false);
  if (t.numel() == 0) {
    return at::empty_strided(t.sizes(), t.strides(), options);
  }
  return at::from_blob(t.data_ptr(), t.sizes(), t.strides(), options);
}

// A new device tensor holding a copy of the CPU tensor `result`.
at::Tensor to_device(const at::Tensor& result) {
  at::Tensor out = at::detail::empty_generic(
      result.sizes(), allocator(), kKeys, result.scalar_type(), c10::MemoryFormat::Contiguous);
  host(out).copy_(result);
  return out;
}

// tanh with its derivative written by the device: registered to AutogradPrivateUse1.
struct Tanh : public torch::autograd::Function<Tanh> {
  static at::Tensor forward(torch::autograd::AutogradContext* ctx, const at::Tensor& self) {
    at::Tensor result = to_device(at::tanh(host(self)));
    ctx->save_for_backward({result});
    return result;
  }

  static torch::autograd::variable_list backward(
      torch::autograd::AutogradContext* ctx, torch::autograd::variable_list grads) {
    if (!grads[0].defined()) {
      return {at::Tensor()};
    }
    at::Tensor result = ctx->get_saved_variables()[0];
    at::Tensor y = host(result);
    return {to_device(host(grads[0]) * (1 - y * y))};
  }
};

} // namespace


// -- what every PrivateUse1 device provides ---------------------------------
at::Tensor PrivateUse1NativeFunctions::empty_symint(
    c10::SymIntArrayRef size,
    std::optional<at::ScalarType> dtype,
    std::optional<at::Layout> layout,
    std::optional<at::Device> device,
    std::optional<bool> pin_memory,
    std::optional<at::MemoryFormat> memory_format) {
  return at::detail::empty_generic(
      C10_AS_INTARRAYREF_SLOW(size), allocator(), kKeys, c10::dtype_or_default(dtype),
      memory_format);
}

at::Tensor PrivateUse1NativeFunctions::empty_strided_symint(
    c10::SymIntArrayRef size,
    c10::SymIntArrayRef stride,
    std::optional<at::ScalarType> dtype,
    std::optional<at::Layout> layout,
    std::optional<at::Device> device,
    std::optional<bool> pin_memory) {
  return at::detail::empty_strided_generic(
      C10_AS_INTARRAYREF_SLOW(size), C10_AS_INTARRAYREF_SLOW(stride), allocator(), kKeys,
      c10::dtype_or_default(dtype));
}

at::Tensor PrivateUse1NativeFunctions::as_strided_symint(
    const at::Tensor& self,
    c10::SymIntArrayRef size,
    c10::SymIntArrayRef stride,
    std::optional<c10::SymInt> storage_offset) {
  std::optional<int64_t> offset;
  if (storage_offset.has_value()) {
    offset = storage_offset->guard_int(__FILE__, __LINE__);
  }
  return at::native::as_strided_tensorimpl(
      self, C10_AS_INTARRAYREF_SLOW(size), C10_AS_INTARRAYREF_SLOW(stride), offset);
}

at::Tensor PrivateUse1NativeFunctions::view_symint(const at::Tensor& self, c10::SymIntArrayRef size) {
  return at::native::view(self, C10_AS_INTARRAYREF_SLOW(size));
}

at::Tensor PrivateUse1NativeFunctions::_reshape_alias_symint(
    const at::Tensor& self, c10::SymIntArrayRef size, c10::SymIntArrayRef stride) {
  return at::native::_reshape_alias(
      self, C10_AS_INTARRAYREF_SLOW(size), C10_AS_INTARRAYREF_SLOW(stride));
}

const at::Tensor& PrivateUse1NativeFunctions::resize__symint(
    const at::Tensor& self,
    c10::SymIntArrayRef size,
    std::optional<at::MemoryFormat> memory_format) {
  // The CPU implementation grows the storage through its own allocator: ours.
  return at::native::resize_(self, C10_AS_INTARRAYREF_SLOW(size), memory_format);
}

at::Tensor PrivateUse1NativeFunctions::_copy_from(const at::Tensor& self, const at::Tensor& dst, bool non_blocking) {
  host(dst).copy_(host(self), non_blocking);
  return dst;
}

at::Tensor PrivateUse1NativeFunctions::_copy_from_and_resize(const at::Tensor& self, const at::Tensor& dst) {
  dst.resize_(self.sizes());
  host(dst).copy_(host(self));
  return dst;
}

at::Scalar PrivateUse1NativeFunctions::_local_scalar_dense(const at::Tensor& self) {
  return at::_local_scalar_dense(host(self));
}

at::Tensor& PrivateUse1NativeFunctions::set_(at::Tensor& self, at::Storage source) {
  return at::native::set_(self, std::move(source));
}

at::Tensor& PrivateUse1NativeFunctions::set__symint(
    at::Tensor& self,
    at::Storage source,
    c10::SymInt storage_offset,
    c10::SymIntArrayRef size,
    c10::SymIntArrayRef stride) {
  return at::native::set_storage_cpu_(
      self, std::move(source), storage_offset.guard_int(__FILE__, __LINE__),
      C10_AS_INTARRAYREF_SLOW(size), C10_AS_INTARRAYREF_SLOW(stride));
}

// -- compute, by the CPU kernels ----------------------------------------------
at::Tensor PrivateUse1NativeFunctions::abs(const at::Tensor& self) {
  return to_device(at::abs(host(self)));
}

at::Tensor PrivateUse1NativeFunctions::add(const at::Tensor& self, const at::Tensor& other, const at::Scalar& alpha) {
  return to_device(at::add(host(self), host(other), alpha));
}

at::Tensor PrivateUse1NativeFunctions::mul(const at::Tensor& self, const at::Tensor& other) {
  return to_device(at::mul(host(self), host(other)));
}

at::Tensor PrivateUse1NativeFunctions::sum(const at::Tensor& self, std::optional<at::ScalarType> dtype) {
  return to_device(at::sum(host(self), dtype));
}

at::Tensor PrivateUse1NativeFunctions::sum(
    const at::Tensor& self,
    at::OptionalIntArrayRef dim,
    bool keepdim,
    std::optional<at::ScalarType> dtype) {
  return to_device(at::sum(host(self), dim, keepdim, dtype));
}

at::Tensor& PrivateUse1NativeFunctions::fill_(at::Tensor& self, const at::Scalar& value) {
  host(self).fill_(value);
  return self;
}

at::Tensor& PrivateUse1NativeFunctions::zero_(at::Tensor& self) {
  host(self).zero_();
  return self;
}

// -- autograd ---------------------------------------------------------------------
at::Tensor PrivateUse1NativeFunctions::tanh(const at::Tensor& self) {
  return Tanh::apply(self);
}

} // namespace hostdev
