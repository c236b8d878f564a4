${banner}
// Wrappers of the ${view.backend} kernels and their registration to the
// ${view.key} dispatch key.
// The backend's own tree may be formatted differently: clang-format off

#include <c10/core/TensorImpl.h>
#include <c10/core/Allocator.h>
#include <ATen/DeviceGuard.h>
#include <ATen/Utils.h>
#include <ATen/WrapDimUtils.h>
#include <ATen/Dispatch.h>
#include <c10/util/ExclusivelyOwned.h>
#include <c10/util/Half.h>
#include <c10/core/UndefinedTensorImpl.h>
#include <optional>
#include <ATen/Tensor.h>
#include <ATen/native/Resize.h>

#include <cstddef>
#include <functional>
#include <memory>
#include <utility>

#include <ATen/Config.h>
#include <ATen/core/op_registration/adaption.h>
#include <torch/library.h>
#include "${view.class_header}"
% for header in view.headers:
#include <${header}>
% endfor

namespace at {
// Anonymous: the wrappers' names must not meet identifiers of namespace at.
namespace {

% if view.helpers:
C10_DIAGNOSTIC_PUSH_AND_IGNORED_IF_DEFINED("-Wunused-function")
% for helper in view.helpers:
${helper}

% endfor
C10_DIAGNOSTIC_POP()

% endif
% for definition in view.definitions:
${definition}

% endfor
% for namespace, lines in view.registrations:
TORCH_LIBRARY_IMPL(${namespace}, ${view.key}, m) {
% for line in lines:
  ${line}
% endfor
}

% endfor
} // namespace
} // namespace at
