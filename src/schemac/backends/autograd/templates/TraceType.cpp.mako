${banner}
// Tracer kernels (shard ${view.shard}): see trace_type.py.

#define TORCH_ASSERT_ONLY_METHOD_OPERATORS
#include "torch/csrc/jit/frontend/tracer.h"
#include "torch/csrc/autograd/function.h"

#include <ATen/quantized/Quantizer.h>
#include <torch/library.h>

#ifndef AT_PER_OPERATOR_HEADERS
#include <ATen/Operators.h>
#else
% for header in view.headers:
#include <ATen/ops/${header}_ops.h>
% endfor
#endif

using namespace at;

namespace torch {

namespace TraceType {

namespace {
% for text in view.kernel_texts:
${text}\
% endfor

} // namespace
} // namespace TraceType

namespace {

% for namespace, lines in view.registrations:
TORCH_LIBRARY_IMPL(${namespace}, Tracer, m) {
  % for line in lines:
  ${line}
  % endfor
}
% endfor

} // namespace

} // namespace torch
