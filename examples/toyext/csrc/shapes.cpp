// Shape operators: a view and its copy, a SymInt argument and a data-dependent
// output size (its fake is in Python: toyext/fakes.py).
// Declarations come from the generated <toyext/kernels/<op>.h>: a kernel whose
// signature does not match its schema in ops.yaml does not compile.  Each file
// includes only the headers of the operators it defines, so editing one
// operator recompiles only the sources that implement it.
#include <ATen/ATen.h>
#include <ATen/Dispatch.h>

#include <toyext/kernels/swap_last.h>
#include <toyext/kernels/swap_last_copy.h>
#include <toyext/kernels/repeat_rows.h>
#include <toyext/kernels/nonzero_rows.h>

#include <vector>

namespace toyext::native {

at::Tensor swap_last(const at::Tensor& self) {
  return self.transpose(-1, -2);
}

at::Tensor swap_last_copy(const at::Tensor& self) {
  return self.transpose(-1, -2).clone(at::MemoryFormat::Contiguous);
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
