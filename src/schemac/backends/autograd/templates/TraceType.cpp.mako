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
% for k in view.kernels:

${k.call.head} {
  % if k.record:
  torch::jit::Node* node = nullptr;
  std::shared_ptr<jit::tracer::TracingState> tracer_state;
  if (jit::tracer::isTracing()) {
    tracer_state = jit::tracer::getTracingState();
    % if k.symbol == k.outplace_symbol:
    const auto op_name = c10::Symbol::fromQualString("${k.symbol}");
    % else:
    const auto op_name = c10::Symbol::fromQualString(
        tracer_state->force_outplace ? "${k.outplace_symbol}" : "${k.symbol}");
    % endif
    node = tracer_state->createNode(op_name, /*num_outputs=*/0);
    jit::tracer::recordSourceLocation(node);
    % for name, expr in k.inputs:
    jit::tracer::addInputs(node, "${name}", ${expr});
    % endfor
    % if k.inplace_inputs or k.outplace_inputs:
    if (tracer_state->force_outplace) {
      % for name, expr in k.outplace_inputs:
      jit::tracer::addInputs(node, "${name}", ${expr});
      % endfor
    } else {
      % for name, expr in k.inplace_inputs:
      jit::tracer::addInputs(node, "${name}", ${expr});
      % endfor
    }
    % endif
    tracer_state->insertNode(node);
    % if k.unique:
    jit::tracer::ensureUniqueIfOutOfPlaced("${k.unique_label}", ${k.unique});
    % endif
    jit::tracer::setTracingState(nullptr);
  }
  % endif
  % if k.call.returns_void or k.call.returns_arguments:
  ${k.call.call};
  % else:
  auto _tmp = ${k.call.call};
  ${k.call.binding}
  % endif
  % if k.record:
  if (tracer_state) {
    jit::tracer::setTracingState(std::move(tracer_state));
    % for name in k.call.result_names:
    jit::tracer::addOutput(node, ${name});
    % endfor
  }
  % endif
  % if not k.call.returns_void:
  return ${k.call.return_expr};
  % endif
}
% endfor

} // namespace
} // namespace TraceType

namespace {

% for namespace, kernels in view.by_namespace:
TORCH_LIBRARY_IMPL(${namespace}, Tracer, m) {
  % for k in kernels:
  m.impl("${k.schema_name}", TORCH_FN(TraceType::${k.name}));
  % endfor
}
% endfor

} // namespace

} // namespace torch
