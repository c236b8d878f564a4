${banner}
// Autograd kernels (shard ${view.shard}): see docs/autograd.md.

#include "torch/csrc/autograd/VariableTypeUtils.h"
#include "torch/csrc/autograd/generated/VariableType.h"
#include "torch/csrc/autograd/FunctionsManual.h"

#include <ATen/SparseCsrTensorUtils.h>
#include <ATen/core/TorchDispatchUtils.h>
#include <c10/core/impl/TorchDispatchModeTLS.h>
#include <torch/library.h>

% for header in view.headers:
#include <ATen/ops/${header}_ops.h>
% endfor

using namespace at;
using namespace torch::autograd::generated;
using namespace torch::autograd::generated::details;

namespace torch::autograd {

namespace VariableType {
namespace {

// set_ and resize_ give self new storage: its accumulated-gradient node must
// not keep accumulating into the old one.
[[maybe_unused]] void reset_grad_accumulator(Variable& self) {
  AutogradMeta* meta = torch::autograd::impl::get_autograd_meta(self);
  if (meta != nullptr) {
    meta->grad_accumulator_.reset();
  }
}
% for text in view.kernel_texts:
${text}\
% endfor

} // namespace
} // namespace VariableType

namespace {
% for block in view.registrations:

TORCH_LIBRARY_IMPL(${block.namespace}, ${block.key}, m) {
  % for line in block.lines:
  ${line}
  % endfor
}
% endfor

} // namespace

} // namespace torch::autograd
