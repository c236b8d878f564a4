#pragma once

${banner}

#include <string_view>
#include <tuple>
#include <vector>

// TensorBody.h includes this header to define Tensor's methods, so the types
// of these signatures can only be declared here, not defined.
#include <ATen/core/ATen_fwd.h>

namespace at {
namespace _ops {
% for op in view.structs:

struct TORCH_API ${op.name} {
  using schema = ${op.function_type};
  using ptr_schema = schema*;
  // Pointers rather than arrays: NVCC on Windows mishandles static constexpr char arrays.
  static constexpr const char* name = ${op.qualified_name};
  static constexpr const char* overload_name = ${op.overload_name};
  static constexpr const char* schema_str = ${op.schema_str};
  static ${op.call};
  static ${op.redispatch};
};
% endfor

} // namespace _ops
} // namespace at
