<%doc>Each kernel's text, followed by view.separator; the shard and Everything files reuse the texts (kernel_texts.py).</%doc>\
<%def name="tangent(i)">\
      auto ${i.name}_t_raw = toNonOptFwGrad(${i.source});
      auto ${i.name}_tensor = toNonOptTensor(${i.source});
      auto ${i.name}_t = (${i.name}_t_raw.defined() || !${i.name}_tensor.defined())
          ? ${i.name}_t_raw : ${i.zeros}(${i.name}_tensor.sym_sizes(), ${i.name}_tensor.options());
% if not i.dense_zeros:
      update_wrapped_number(${i.name}_tensor, ${i.name}_t);
% endif
</%def>\
% for k in view.kernels:

${k.call.head} {
  % for line in k.unpacks:
  ${line}
  % endfor
  % if k.graph and k.graph.options:
  const auto options = TensorOptions().dtype(dtype).layout(layout).device(device).pinned_memory(pin_memory);
  % endif
  % if k.out_error:
  if (compute_requires_grad(${', '.join(k.out_error_args)})) {
    throw_error_out_requires_grad("${k.out_error}");
  }
  % endif
  % if k.graph and k.graph.per_element:
  [[maybe_unused]] auto _any_requires_grad = compute_requires_grad(${', '.join(k.element_lists)});
  % elif k.graph:
  [[maybe_unused]] auto _any_requires_grad = compute_requires_grad(${', '.join(k.graph.grad_inputs)});
  % endif
  % for g in k.forward.grads:
  % if g.per_element:
  std::vector<bool> ${g.flag}(${g.size}.size());
  for (const auto i : c10::irange(${g.size}.size())) {
    ${g.flag}[i] = ${g.any_defined};
  }
  % else:
  [[maybe_unused]] auto ${g.flag} = ${g.any_defined};
  % endif
  % endfor
  % if k.forward.forbid_condition:
  TORCH_CHECK_NOT_IMPLEMENTED(!(${k.forward.forbid_condition}), "${k.forward.forbid_message}");
  % endif
  % if k.graph and k.graph.rebase and not k.graph.per_element:
  check_inplace(self, _any_requires_grad);
  % endif
  % if k.declares_original_self:
  [[maybe_unused]] ::std::optional<at::Tensor> original_self;
  % if k.forward.original_self_flags:
  if (${' || '.join(k.forward.original_self_flags)}) {
    original_self = self.clone();
  }
  % endif
  % endif
  % if k.declares_original_selfs:
  [[maybe_unused]] std::vector<::std::optional<at::Tensor>> original_selfs(self.size());
  % if k.forward.original_self_flags:
  for (const auto i : c10::irange(self.size())) {
    if (${' || '.join(f + '[i]' for f in k.forward.original_self_flags)}) {
      original_selfs[i] = self[i].clone();
    }
  }
  % endif
  % endif
  % if k.graph and k.graph.per_element:
  // One node per tensor of self, as the per-tensor operator would record.
  std::vector<${k.graph.pointers.of(k.graph.node)}> grad_fns;
  if (_any_requires_grad) {
    for (const auto i : c10::irange(self.size())) {
      const auto ith_requires_grad = compute_requires_grad(${', '.join(k.graph.grad_inputs)});
      check_inplace(self[i], ith_requires_grad);
      ${k.graph.pointers.of(k.graph.node)} grad_fn;
      if (ith_requires_grad) {
        grad_fn = ${k.graph.pointers.make(k.graph.node)};
        grad_fn->set_next_edges(collect_next_edges(${', '.join(k.graph.grad_inputs)}));
      % for save in k.graph.saves_before:
      % if save.guard:
        if (${save.guard}) {
        % for line in save.lines:
          ${line}
        % endfor
        }
      % else:
      % for line in save.lines:
        ${line}
      % endfor
      % endif
      % endfor
      }
      grad_fns.push_back(std::move(grad_fn));
    }
  }
  % elif k.graph:
  % for line in k.graph.no_grad_checks:
  ${line}
  % endfor
  ${k.graph.pointers.of(k.graph.node_type)} grad_fn;
  if (_any_requires_grad) {
    % if k.graph.not_implemented:
    grad_fn = ${k.graph.pointers.make("NotImplemented", '"' + k.graph.not_implemented + '"')};
    % else:
    grad_fn = ${k.graph.pointers.make(k.graph.node)};
    % endif
    grad_fn->set_next_edges(collect_next_edges(${', '.join(k.graph.grad_inputs)}));
    % for save in k.graph.saves_before:
    % if save.guard:
    if (${save.guard}) {
      % for line in save.lines:
      ${line}
      % endfor
    }
    % else:
    % for line in save.lines:
    ${line}
    % endfor
    % endif
    % endfor
  }
  % endif
  % if k.call.returns_void or k.call.returns_arguments:
  {
    ${k.guard} guard;
    ${k.call.call};
  }
  % else:
  auto _tmp = ([&]() {
    ${k.guard} guard;
    return ${k.call.call};
  })();
  ${k.call.binding}
  % endif
  % if k.graph and k.graph.per_element:
  % if k.graph.fires_creation_hooks:
  c10::SmallVector<${k.graph.pointers.of("Node")}, 8> _rebased_fns(grad_fns.size());
  % endif
  for (const auto i : c10::irange(grad_fns.size())) {
    if (grad_fns[i]) {
      ${'_rebased_fns[i] = ' if k.graph.fires_creation_hooks else ''}rebase_history(self[i], grad_fns[i]);
    % if k.graph.saves_after:
      auto& grad_fn = grad_fns[i];
    % endif
    % for line in k.graph.saves_after:
      ${line}
    % endfor
    }
  }
  % elif k.graph and k.graph.history and k.graph.rebases_history and k.graph.fires_creation_hooks:
  ${k.graph.pointers.of("Node")} _rebased_fn;
  if (grad_fn) {
    _rebased_fn = rebase_history(flatten_tensor_args(${', '.join(k.graph.history)}), grad_fn);
  }
  % elif k.graph and k.graph.history:
  if (grad_fn) {
    ${'rebase_history' if k.graph.rebases_history else 'set_history'}(flatten_tensor_args(${', '.join(k.graph.history)}), grad_fn);
  }
  % endif
  % if k.graph:
  % for line in k.graph.complex_checks:
  ${line}
  % endfor
  % endif
  % if k.graph and k.graph.saves_after and not k.graph.per_element:
  if (grad_fn) {
    % for line in k.graph.saves_after:
    ${line}
    % endfor
  }
  % endif
<%def name="bind(g)">\
    % for i in g.inputs:
    % if i.tangent:
${tangent(i)}\
    % endif
    % if i.primal:
      auto ${i.name}_p = toNonOptPrimal(${i.source});
    % endif
    % endfor
</%def>\
  % for g in k.forward.grads:
  % if g.per_element:
  std::vector<::std::optional<at::Tensor>> ${g.output}_new_fw_grad_opts(${g.size}.size(), ::std::nullopt);
  for (const auto i : c10::irange(${g.size}.size())) {
    if (${g.flag}[i]) {
${bind(g)}\
      ${g.output}_new_fw_grad_opts[i] = ${g.formula};
    }
  }
  for (const auto i : c10::irange(${g.output}_new_fw_grad_opts.size())) {
    auto& ${g.output}_new_fw_grad_opt = ${g.output}_new_fw_grad_opts[i];
    if (${g.output}_new_fw_grad_opt.has_value() && ${g.output}_new_fw_grad_opt.value().defined() && ${g.target}.defined()) {
      ${g.target}._set_fw_grad(${g.output}_new_fw_grad_opt.value(), /* level */ 0, /* is_inplace_op */ ${'true' if g.inplace else 'false'});
    }
  }
  % elif g.parts:
  ::std::optional<${g.tuple_type}> ${g.output}_new_fw_grad_opt = ::std::nullopt;
  if (${g.flag}) {
${bind(g)}\
      ${g.output}_new_fw_grad_opt = ${g.formula};
  }
  % for part in g.parts:
  if (${g.output}_new_fw_grad_opt.has_value() && std::get<${loop.index}>(${g.output}_new_fw_grad_opt.value()).defined() && ${part}.defined()) {
    ${part}._set_fw_grad(std::get<${loop.index}>(${g.output}_new_fw_grad_opt.value()), /* level */ 0, /* is_inplace_op */ ${'true' if g.inplace else 'false'});
  }
  % endfor
  % elif g.list_output:
  ::std::optional<::std::vector<at::Tensor>> ${g.output}_new_fw_grad_opt = ::std::nullopt;
  if (${g.flag}) {
${bind(g)}\
      ${g.output}_new_fw_grad_opt = ${g.formula};
  }
  if (${g.output}_new_fw_grad_opt.has_value()) {
    auto ${g.output}_new_fw_grad = ${g.output}_new_fw_grad_opt.value();
    for (const auto i : c10::irange(${g.output}.size())) {
      if (${g.output}_new_fw_grad[i].defined() && ${g.output}[i].defined()) {
        ${g.output}[i]._set_fw_grad(${g.output}_new_fw_grad[i], /* level */ 0, /* is_inplace_op */ ${'true' if g.inplace else 'false'});
      }
    }
  }
  % else:
  ::std::optional<at::Tensor> ${g.output}_new_fw_grad_opt = ::std::nullopt;
  if (${g.flag} && ${g.output}.defined()) {
${bind(g)}\
      ${g.output}_new_fw_grad_opt = ${g.formula};
  }
  if (${g.output}_new_fw_grad_opt.has_value() && ${g.output}_new_fw_grad_opt.value().defined() && ${g.output}.defined()) {
    // Level 0: the only forward-AD level PyTorch supports so far.
    ${g.output}._set_fw_grad(${g.output}_new_fw_grad_opt.value(), /* level */ 0, /* is_inplace_op */ ${'true' if g.inplace else 'false'});
  }
  % endif
  % endfor
  % if k.graph and k.graph.fires_creation_hooks:
  % if k.graph.per_element:
  for (const auto i : c10::irange(grad_fns.size())) {
    if (_rebased_fns[i]) {
      fire_node_creation_hooks(_rebased_fns[i]);
    }
  }
  % else:
<% fired = '_rebased_fn' if k.graph.rebases_history and k.graph.history else 'grad_fn' %>\
  if (${fired}) {
    fire_node_creation_hooks(${fired});
  }
  % endif
  % endif
  % if k.resets_grad_accumulator:
  reset_grad_accumulator(self);
  % endif
  % if not k.call.returns_void:
  return ${k.call.return_expr};
  % endif
}
${view.separator}\
% endfor
