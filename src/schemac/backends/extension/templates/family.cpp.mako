${banner}
// Schemas, kernel registrations and autograd of ${view.namespace}::${view.root}.
// clang-format off
#include <ATen/core/Tensor.h>
#include <ATen/core/op_registration/adaption.h>
#include <ATen/DeviceGuard.h>
#include <ATen/EmptyTensor.h>
#include <ATen/TensorMeta.h>
#include <ATen/native/Resize.h>
#include <c10/core/DeviceGuard.h>
#include <c10/macros/Macros.h>
#include <torch/library.h>
% if view.autograd.nodes or view.autograd.kernels or view.autograd.autograd_registrations:
#include <torch/csrc/autograd/FunctionsManual.h>
#include <torch/csrc/autograd/VariableTypeUtils.h>
#include <torch/csrc/autograd/autograd_not_implemented_fallback.h>
#include <torch/csrc/autograd/function.h>
% endif

#include <array>
#include <functional>
#include <memory>
#include <optional>
#include <tuple>
#include <utility>
#include <vector>

% for header in view.headers:
#include <${header}>
% endfor
% for kernel in view.registrations.autogen_kernels:

// An autogen'd out= kernel: the functional operator, resized and copied into out.
${kernel}
% endfor

TORCH_LIBRARY_FRAGMENT(${view.namespace}, m) {
% for line in view.registrations.schema_lines:
  ${line}
% endfor
}
% for section in view.registrations.keys:

% if section.guard_macro:
#ifdef ${section.guard_macro}
% endif
% for header in section.headers:
#include <${header}>
% endfor
namespace at {
namespace {
namespace ${view.namespace}_${view.root}_${section.key} {
% for helper in section.helpers:

${helper}
% endfor
% for definition in section.definitions:

${definition}
% endfor

TORCH_LIBRARY_IMPL(${view.namespace}, ${section.key}, m) {
% for line in section.registrations:
  ${line}
% endfor
}

} // namespace ${view.namespace}_${view.root}_${section.key}
} // namespace
} // namespace at
% if section.guard_macro:
#endif // ${section.guard_macro}
% endif
% endfor
% if view.autograd.autograd_registrations:

namespace ${view.namespace}::autograd {
namespace {
using namespace torch::autograd;
using namespace torch::autograd::generated::details;
using namespace ${view.namespace};
using at::Tensor;
% for node in view.autograd.nodes:

${node}
% endfor
% for kernel in view.autograd.kernels:

${kernel}
% endfor

TORCH_LIBRARY_IMPL(${view.namespace}, Autograd, m) {
% for line in view.autograd.autograd_registrations:
  ${line}
% endfor
}
% if view.autograd.inplace_or_view_registrations:

TORCH_LIBRARY_IMPL(${view.namespace}, ADInplaceOrView, m) {
% for line in view.autograd.inplace_or_view_registrations:
  ${line}
% endfor
}
% endif

} // namespace
} // namespace ${view.namespace}::autograd
% endif
