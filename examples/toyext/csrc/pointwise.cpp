// Elementwise kernels: a CPU + Meta pair (blend), a structured operator (scale:
// meta + impl), a composite one (scale_twice) and two CompositeExplicitAutograd ones.
// Declarations come from the generated <toyext/kernels/<op>.h>: a kernel whose
// signature does not match its schema in ops.yaml does not compile.  Each file
// includes only the headers of the operators it defines, so editing one
// operator recompiles only the sources that implement it.
#include <ATen/ATen.h>
#include <ATen/Dispatch.h>
#include <ATen/TensorMeta.h>

#include <toyext/kernels/blend.h>
#include <toyext/kernels/scale.h>
#include <toyext/kernels/scale_twice.h>
#include <toyext/kernels/clamp_range.h>
#include <toyext/kernels/round_to.h>
#include <toyext/ops/scale.h>  // scale_twice calls toyext::scale

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

at::Tensor round_to(const at::Tensor& self, int64_t decimals) {
  return at::round(self, decimals);
}

}  // namespace toyext::native
