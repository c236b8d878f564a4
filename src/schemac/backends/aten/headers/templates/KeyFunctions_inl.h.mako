#pragma once

${banner}

<%include file="dispatch_includes.mako"/>

#if defined(AT_PER_OPERATOR_HEADERS) && defined(TORCH_ASSERT_ONLY_METHOD_OPERATORS)
#error This file pulls in every operator. Include the operator you need, \
  <ATen/ops/{operator}_${view.namespace}_dispatch.h>, instead \
  (see NOTE [TORCH_ASSERT_ONLY_METHOD_OPERATORS]).
#endif

% for path in view.includes:
#include <${path}>
% endfor
