#pragma once

${banner}

#ifdef TORCH_ASSERT_NO_OPERATORS
#error This file depends on native_functions.yaml: every operator change \
  recompiles whatever includes it. Include a narrower header instead \
  (see NOTE: [Tensor vs. TensorBase]).
#endif

// The at::_ops structs of every operator that is also a Tensor method;
// TensorBody.h includes this before Tensor is complete, hence only ATen_fwd.h.
#include <ATen/core/ATen_fwd.h>

% for path in view.includes:
#include <${path}>
% endfor
