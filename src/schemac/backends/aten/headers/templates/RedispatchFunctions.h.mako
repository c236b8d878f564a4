#pragma once

${banner}

#ifdef TORCH_ASSERT_ONLY_METHOD_OPERATORS
#error This file pulls in every operator. Call at::_ops::{operator}::redispatch() \
  from <ATen/ops/{operator}_ops.h> instead.
#endif

#include <c10/core/Scalar.h>
#include <ATen/Tensor.h>
#include <c10/core/Storage.h>
#include <ATen/core/Generator.h>
#include <c10/util/Deprecated.h>
#include <ATen/DeviceGuard.h>
#include <c10/core/TensorOptions.h>
#include <ATen/core/Reduction.h>
#include <optional>
#include <ATen/TensorUtils.h>
#include <ATen/Context.h>
#include <ATen/TracerMode.h>
#include <ATen/Operators.h>

namespace at {
namespace redispatch {
% for block in view.blocks:
${block}
% endfor

} // namespace redispatch
} // namespace at
