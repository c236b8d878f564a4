<%doc>Each kernel's text, followed by view.separator; the shard and Everything files reuse the texts (kernel_texts.py).</%doc>\
<%def name="make_view(k, output, meta)">\
    std::unique_ptr<torch::autograd::ViewFunc> func(nullptr);
    std::function<at::Tensor(const at::Tensor&)> rev_func = nullptr;
    if (${'true' if k.metadata_change else 'false'} ||
        !${k.base}.unsafeGetTensorImpl()->support_as_strided() ||
        ${k.base}.unsafeGetTensorImpl()->is_python_dispatch() ||
        c10::AutogradState::get_tls_state().get_view_replay_enabled()) {
      % for line in k.materialize:
      ${line}
      % endfor
      func = std::make_unique<${k.view_func}>(${k.view_func_args});
      rev_func = [=](const at::Tensor& input_view) {
        return ${k.inverse};
      };
    }
    ${output}as_view(/* base */ ${k.base}, /* output */ ${'_tmp[view_idx]' if k.multi_output else '_tmp'}, /* is_bw_differentiable */ true, /* is_fw_differentiable */ true, /* view_func */ std::move(func), /* rev_view_func */ rev_func, /* creation_meta */ InferenceMode::is_enabled() ? CreationMeta::INFERENCE_MODE : (at::GradMode::is_enabled() ? CreationMeta::${meta} : CreationMeta::NO_GRAD_MODE));
</%def>\
% for k in view.kernels:

${k.call.head} {
  % if k.base is None:
  {
    at::AutoDispatchBelowADInplaceOrView guard;
    ${k.call.call};
  }
  % for name in k.bumped:
  increment_version(${name});
  % endfor
  % if not k.call.returns_void:
  return ${k.call.return_expr};
  % endif
  % else:
  auto _tmp = ([&]() {
    at::AutoDispatchBelowADInplaceOrView guard;
    return ${k.call.call};
  })();
  % if not k.differentiable:
  auto result = as_view(${k.base}, _tmp, /* is_bw_differentiable */ false, /* is_fw_differentiable */ false);
  % elif k.multi_output:
  for (auto view_idx : c10::irange(_tmp.size())) {
${make_view(k, "", "MULTI_OUTPUT_NODE")}\
  }
  auto result = std::move(_tmp);
  % else:
  {
${make_view(k, "_tmp = ", "DEFAULT")}\
  }
  auto result = std::move(_tmp);
  % endif
  return result;
  % endif
}
${view.separator}\
% endfor
