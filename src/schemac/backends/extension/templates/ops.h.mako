${banner}
// The typed C++ API of ${view.api.namespace}::${view.api.root}: calls through the dispatcher.
#pragma once
#include <ATen/core/Tensor.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <c10/core/Scalar.h>
#include <c10/core/SymInt.h>
#include <optional>
#include <tuple>
#include <vector>

namespace ${view.api.namespace}::_ops {
% for handle in view.api.handles:

${handle}
% endfor

} // namespace ${view.api.namespace}::_ops

namespace ${view.api.namespace} {
% for function in view.api.functions:

${function}
% endfor

} // namespace ${view.api.namespace}
