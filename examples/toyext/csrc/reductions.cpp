// Reductions: two outputs with a Meta kernel (max_dim), the backward helper it
// uses, Tensor[] / float[] / int[] / optional arguments.
// Declarations come from the generated <toyext/kernels/<op>.h>: a kernel whose
// signature does not match its schema in ops.yaml does not compile.  Each file
// includes only the headers of the operators it defines, so editing one
// operator recompiles only the sources that implement it.
#include <ATen/ATen.h>
#include <ATen/Dispatch.h>
#include <ATen/WrapDimUtils.h>

#include <toyext/kernels/max_dim.h>
#include <toyext/kernels/max_dim_backward.h>
#include <toyext/kernels/weighted_sum.h>
#include <toyext/kernels/sum_dims.h>

#include <vector>

namespace toyext::native {

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

}  // namespace toyext::native
