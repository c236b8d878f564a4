${banner}
// The out-of-line bodies of at::_ops::<op>::call and ::redispatch${view.shard_note}:
// each finds its operator in the dispatcher once and calls through the handle.

#include <ATen/Tensor.h>
#include <ATen/core/dispatch/Dispatcher.h>

#ifndef AT_PER_OPERATOR_HEADERS
#include <ATen/Operators.h>
#else
% for header in view.headers:
#include <${header}>
% endfor
#endif

namespace at {
namespace _ops {

% for definition in view.definitions:
${definition}

% endfor
} // namespace _ops
} // namespace at
