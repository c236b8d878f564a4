#pragma once

${banner}

#ifdef TORCH_ASSERT_NO_OPERATORS
#error This file depends on native_functions.yaml: every operator change \
  recompiles whatever includes it. Include a narrower header instead \
  (see NOTE: [Tensor vs. TensorBase]).
#endif

#if defined(AT_PER_OPERATOR_HEADERS) && defined(TORCH_ASSERT_ONLY_METHOD_OPERATORS)
#error This file pulls in every operator. Include the operator you need, \
  <ATen/ops/{operator}_native.h>, instead \
  (see NOTE [TORCH_ASSERT_ONLY_METHOD_OPERATORS]).
#endif

<%include file="native_includes.mako"/>
#include <ATen/core/Tensor.h>
#include <tuple>
#include <vector>

% for path in view.includes:
#include <${path}>
% endfor
