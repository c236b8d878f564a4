${banner}
// Kernels for the BackendSelect key: factory functions (TensorOptions, no
// tensor to dispatch on) compute the backend from dtype, layout and device,
// then redispatch below BackendSelect.

#define TORCH_ASSERT_ONLY_METHOD_OPERATORS
#include <ATen/core/Tensor.h>
#include <ATen/core/dispatch/DispatchKeyExtractor.h>
#include <torch/library.h>

#ifndef AT_PER_OPERATOR_HEADERS
#include <ATen/Operators.h>
#else
% for header in view.headers:
#include <${header}>
% endfor
#endif

namespace at {
namespace {

% for definition in view.definitions:
${definition}

% endfor
TORCH_LIBRARY_IMPL(aten, BackendSelect, m) {
% for line in view.registrations:
  ${line}
% endfor
}

} // namespace
} // namespace at
