${banner}
// Kernels registered for the ${view.key} dispatch key${view.shard_note}.
// clang-format off

// Inside PyTorch's own libraries, generated code may only use the operator
// declarations, which keeps rebuilds small; other users get everything.
#if defined(CAFFE2_BUILD_MAIN_LIB)        || \
    defined(TORCH_CUDA_BUILD_MAIN_LIB)    || \
    defined(TORCH_XPU_BUILD_MAIN_LIB)
#define TORCH_ASSERT_ONLY_METHOD_OPERATORS
#endif

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

% for header in view.headers:
#include <${header}>
% endfor

namespace at {
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

namespace ${view.namespace} {

% for function in view.direct_calls:
${function}

% endfor
} // namespace ${view.namespace}
} // namespace at
