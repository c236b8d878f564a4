// The CUDA kernel of toyext::blend; built only where nvcc and a CUDA torch exist
// (setup.py then defines SCHEMAC_WITH_CUDA, which enables the CUDA registrations).
#include <ATen/ATen.h>
#include <ATen/Dispatch.h>
#include <ATen/cuda/CUDAContext.h>

#include <toyext/kernels/blend.h>

namespace {

template <typename scalar_t>
__global__ void blend_kernel(const scalar_t* a, const scalar_t* b, scalar_t* out, scalar_t w,
                             int64_t n) {
  int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  if (i < n) {
    out[i] = a[i] * (1 - w) + b[i] * w;
  }
}

}  // namespace

namespace toyext::native {

at::Tensor blend_cuda(const at::Tensor& self, const at::Tensor& other, const at::Scalar& weight) {
  TORCH_CHECK(self.sizes() == other.sizes(), "toyext::blend: shapes differ");
  auto a = self.contiguous();
  auto b = other.contiguous();
  auto out = at::empty_like(a, at::MemoryFormat::Contiguous);
  int64_t n = a.numel();
  if (n == 0) {
    return out;
  }
  AT_DISPATCH_FLOATING_TYPES(a.scalar_type(), "blend_cuda", [&] {
    int threads = 256;
    int64_t blocks = (n + threads - 1) / threads;
    blend_kernel<scalar_t><<<blocks, threads, 0, at::cuda::getCurrentCUDAStream()>>>(
        a.const_data_ptr<scalar_t>(), b.const_data_ptr<scalar_t>(),
        out.mutable_data_ptr<scalar_t>(), weight.to<scalar_t>(), n);
  });
  return out;
}

}  // namespace toyext::native
