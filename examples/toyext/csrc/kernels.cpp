// Hand-written kernels of the toyext library.  Their declarations come from
// the generated <toyext/kernels/*.h>: a kernel whose signature does not
// match its schema in ops.yaml does not compile.
#include <ATen/ATen.h>
#include <ATen/Dispatch.h>
#include <ATen/TensorMeta.h>
#include <ATen/WrapDimUtils.h>

#include <toyext/kernels.h>
#include <toyext/ops.h>

#include <vector>

namespace toyext::meta {

// The structured meta function: checks and the output's shape, for every backend.
TORCH_META_FUNC(scale)(const at::Tensor& self, const at::Scalar& factor) {
  TORCH_CHECK(!factor.isComplex(), "toyext::scale: complex factors are not supported");
  set_output_raw_strided(0, self.sizes(), {}, self.options());
}

}  // namespace toyext::meta

namespace toyext::native {

// The structured CPU kernel: fills the output meta() allocated (or checked).
TORCH_IMPL_FUNC(scale_out_cpu)(const at::Tensor& self, const at::Scalar& factor, const at::Tensor& out) {
  auto input = self.contiguous();
  AT_DISPATCH_FLOATING_TYPES(self.scalar_type(), "scale_out_cpu", [&] {
    auto f = factor.to<scalar_t>();
    const scalar_t* in = input.const_data_ptr<scalar_t>();
    auto result = out.is_contiguous() ? out : at::empty_like(out, at::MemoryFormat::Contiguous);
    scalar_t* dst = result.mutable_data_ptr<scalar_t>();
    for (int64_t i = 0; i < input.numel(); ++i) {
      dst[i] = in[i] * f;
    }
    if (!result.is_same(out)) {
      out.copy_(result);
    }
  });
}

at::Tensor blend_cpu(const at::Tensor& self, const at::Tensor& other, const at::Scalar& weight) {
  TORCH_CHECK(self.sizes() == other.sizes(), "toyext::blend: shapes ", self.sizes(), " and ",
              other.sizes(), " differ");
  TORCH_CHECK(self.scalar_type() == other.scalar_type(), "toyext::blend: dtypes differ");
  auto a = self.contiguous();
  auto b = other.contiguous();
  auto out = at::empty_like(a, at::MemoryFormat::Contiguous);
  AT_DISPATCH_FLOATING_TYPES(a.scalar_type(), "blend_cpu", [&] {
    auto w = weight.to<scalar_t>();
    const scalar_t* pa = a.const_data_ptr<scalar_t>();
    const scalar_t* pb = b.const_data_ptr<scalar_t>();
    scalar_t* po = out.mutable_data_ptr<scalar_t>();
    for (int64_t i = 0; i < a.numel(); ++i) {
      po[i] = pa[i] * (1 - w) + pb[i] * w;
    }
  });
  return out;
}

// Meta kernels only compute shapes; they use symbolic sizes so that
// torch.compile(dynamic=True) can trace them.
at::Tensor blend_meta(const at::Tensor& self, const at::Tensor& other, const at::Scalar& weight) {
  TORCH_CHECK(self.sym_sizes() == other.sym_sizes(), "toyext::blend: shapes differ");
  TORCH_CHECK(self.scalar_type() == other.scalar_type(), "toyext::blend: dtypes differ");
  return at::empty_symint(self.sym_sizes(), self.options());
}

at::Tensor scale_twice(const at::Tensor& self, const at::Scalar& factor) {
  // A composite kernel: autograd and fake tensors see through to toyext::scale.
  return toyext::scale(toyext::scale(self, factor), factor);
}

at::Tensor clamp_range(const at::Tensor& self, double low, double high) {
  return at::clamp(self, low, high);
}

at::Tensor swap_last(const at::Tensor& self) {
  return self.transpose(-1, -2);
}

at::Tensor swap_last_copy(const at::Tensor& self) {
  return self.transpose(-1, -2).clone(at::MemoryFormat::Contiguous);
}

::std::tuple<at::Tensor, at::Tensor> max_dim_cpu(const at::Tensor& self, int64_t dim) {
  auto [values, indices] = at::max(self, dim);
  return {values, indices};
}

::std::tuple<at::Tensor, at::Tensor> max_dim_meta(const at::Tensor& self, int64_t dim) {
  dim = at::maybe_wrap_dim(dim, self.dim());
  std::vector<c10::SymInt> sizes(self.sym_sizes().begin(), self.sym_sizes().end());
  sizes.erase(sizes.begin() + dim);
  return {at::empty_symint(sizes, self.options()),
          at::empty_symint(sizes, self.options().dtype(at::kLong))};
}

at::Tensor max_dim_backward_symint(const at::Tensor& grad, const at::Tensor& indices, int64_t dim,
                                   c10::SymIntArrayRef sizes) {
  return at::zeros_symint(sizes, grad.options())
      .scatter(dim, indices.unsqueeze(dim), grad.unsqueeze(dim));
}

at::Tensor weighted_sum(at::TensorList tensors, at::ArrayRef<double> weights,
                        const ::std::optional<at::Tensor>& bias) {
  TORCH_CHECK(!tensors.empty(), "toyext::weighted_sum: no tensors");
  TORCH_CHECK(tensors.size() == weights.size(), "toyext::weighted_sum: ", tensors.size(),
              " tensors but ", weights.size(), " weights");
  auto total = tensors[0] * weights[0];
  for (size_t i = 1; i < tensors.size(); ++i) {
    total = total + tensors[i] * weights[i];
  }
  return bias.has_value() ? total + *bias : total;
}

at::Tensor sum_dims(const at::Tensor& self, at::IntArrayRef dims, bool keepdim) {
  return self.sum(dims, keepdim);
}

at::Tensor repeat_rows_symint(const at::Tensor& self, c10::SymInt repeats) {
  std::vector<c10::SymInt> times(self.dim(), 1);
  times[0] = repeats;
  return self.repeat_symint(times);
}

at::Tensor nonzero_rows_cpu(const at::Tensor& self) {
  TORCH_CHECK(self.dim() == 2, "toyext::nonzero_rows: expected a matrix");
  auto keep = (self != 0).any(1).nonzero().squeeze(1);
  return self.index_select(0, keep);
}

}  // namespace toyext::native
