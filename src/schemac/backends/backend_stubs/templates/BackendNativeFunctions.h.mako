#pragma once
${banner}
// The kernels of the ${view.backend} backend: define each member below, with
// exactly this signature, in your sources (schemac compile --impl-path checks).
// The backend's own tree may be formatted differently: clang-format off

#include <ATen/Tensor.h>
% for header in view.headers:
#include <${header}>
% endfor

namespace ${view.namespace} {

struct ${view.class_name} {
% for declaration in view.declarations:
${declaration}
% endfor
};

} // namespace ${view.namespace}
