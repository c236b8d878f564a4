<%doc>Each kernel's text, followed by view.separator; the shard and Everything files reuse the texts (kernel_texts.py).</%doc>\
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
${view.separator}\
% endfor
