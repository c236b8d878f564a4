#pragma once

${banner}

// Defined in the registration file of this dispatch key.

<%include file="dispatch_includes.mako"/>

// Signatures only need the types declared: TensorBody.h can reach this header.
#include <ATen/core/ATen_fwd.h>

namespace at {
namespace ${view.namespace} {

% for d in view.declarations:
${d}
% endfor

} // namespace ${view.namespace}
} // namespace at
