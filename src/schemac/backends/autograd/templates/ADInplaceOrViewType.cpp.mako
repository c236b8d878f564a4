${banner}
// ADInplaceOrView kernels (shard ${view.shard}): see inplace_or_view.py.

#define TORCH_ASSERT_ONLY_METHOD_OPERATORS
#include "torch/csrc/autograd/VariableTypeUtils.h"
#include "torch/csrc/autograd/generated/ViewFuncs.h"

#include <ATen/FunctionalInverses.h>
#include <torch/library.h>

#ifndef AT_PER_OPERATOR_HEADERS
#include <ATen/Operators.h>
#else
% for header in view.headers:
#include <ATen/ops/${header}_ops.h>
% endfor
#endif

using namespace at;
using torch::autograd::CreationMeta;
using torch::autograd::as_view;
using torch::autograd::increment_version;

namespace torch {

namespace ADInplaceOrView {

namespace {
% for text in view.kernel_texts:
${text}\
% endfor

} // namespace
} // namespace ADInplaceOrView

namespace {

% for namespace, lines in view.registrations:
TORCH_LIBRARY_IMPL(${namespace}, ADInplaceOrView, m) {
  % for line in lines:
  ${line}
  % endfor
}
% endfor

} // namespace

} // namespace torch
