#pragma once

${banner}

<%include file="function_includes.mako"/>

#include <ATen/ops/${view.root}_ops.h>

namespace at {
% for f in view.forwarders:

// ${f.schema}
% if f.int_type is None:
inline ${f.decl} {
    return at::_ops::${f.struct}::call(${f.arguments});
}
% else:
namespace symint {
  template <typename T, typename = std::enable_if_t<std::is_same_v<T, ${f.int_type}>>>
  ${f.decl} {
    return at::_ops::${f.struct}::call(${f.arguments});
  }
}
% endif
% endfor

} // namespace at
