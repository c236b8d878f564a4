<%doc>Each node's Functions.h text, view.part, its Functions.cpp text, view.separator; the files paste them (functions.py).</%doc>\
<%def name="slot_ranges(node)">\
  IndexRangeGenerator gen;
% for input in node.inputs:
  auto ${input.name}_ix = gen.range(${input.size});
% endfor
</%def>\
<%def name="needs_input_grad(node)">\
${slot_ranges(node)}\
  auto needs_input_grad = std::array<bool, ${len(node.inputs)}>{
% for input in node.inputs:
    task_should_compute_output({ ${input.name}_ix }),
% endfor
  };
</%def>\
<%def name="prepare(node)">\
% for check in node.released_checks:
  ${check}
% endfor
% for unpack in node.unpacks:
  ${unpack}
% endfor
${needs_input_grad(node)}\
</%def>\
<%def name="block(b)">\
% if b.is_single and b.foreach:
  if (needs_input_grad[/*${b.targets[0][0]}*/${b.targets[0][1]}]) {
    std::vector<Tensor> grad_result;
    grad_result.reserve(grads.size());
    for (const auto i : c10::irange(grads.size())) {
      // An undefined output gradient gives an undefined input gradient.
      if (grads[i].defined()) {
        grad_result.emplace_back(${b.formula});
      } else {
        grad_result.emplace_back(Tensor());
      }
    }
    copy_range(grad_inputs, ${b.targets[0][0]}_ix, grad_result);
  }
% elif b.is_single:
  if (needs_input_grad[/*${b.targets[0][0]}*/${b.targets[0][1]}]) {
    auto grad_result = ${b.formula};
    copy_range(grad_inputs, ${b.targets[0][0]}_ix, grad_result);
  }
% else:
  if (${b.condition}) {
  % if b.uses_mask:
    auto grad_input_mask = std::array<bool, ${len(b.targets)}>{
    % for name, i in b.targets:
      needs_input_grad[${i}],
    % endfor
    };
  % endif
    auto grad_result = ${b.formula};
  % for name, i in b.targets:
    if (needs_input_grad[/*${name}*/${i}]) {
      copy_range(grad_inputs, ${name}_ix, std::get<${loop.index}>(grad_result));
    }
  % endfor
  }
% endif
</%def>\
% for node in view.nodes:
## MSVC wants the export on the constructor, not on the struct.
#ifdef _WIN32
struct ${node.op} : public ${node.superclass} {
  TORCH_API ${node.op}() = default;
#else
struct TORCH_API ${node.op} : public ${node.superclass} {
#endif
  using ${node.superclass}::${node.superclass};
  variable_list apply(variable_list&& grads) override;
  std::string name() const override { return "${node.op}"; }
  void release_variables() override {
  % if node.release_lines:
    std::lock_guard<std::mutex> lock(mutex_);
  % endif
  % for line in node.release_lines:
    ${line}
  % endfor
  }
  % if node.retains_variables:
  bool retain_variables = true;
  void will_release_variables() override {
    retain_variables = false;
  }
  % endif
  void compiled_args(CompiledNodeArgs& args) const override;
  variable_list apply_with_saved(const variable_list& inputs, SwapSavedVariables& saved) override;
  % for line in node.data_member_declarations:
  ${line}
  % endfor
};

${view.part}\
<%
    params = node.functional_params
    # apply and apply_with_saved unpack the same values: printed once.
    prepared = capture(prepare, node)
%>\
static variable_list ${node.op}_apply_functional(
    variable_list&& grads,
    std::array<bool, ${len(node.inputs)}> needs_input_grad${node.functional_param_tail}) {
${slot_ranges(node)}\
  variable_list grad_inputs(gen.size());
  % for name, i in node.grad_aliases:
  const auto& ${name} = grads[${i}];
  % endfor
  % if node.needs_any_grad_defined:
  bool any_grad_defined = any_variable_defined(grads);
  % endif
  % for b in node.blocks:
${block(b)}\
  % endfor
  return grad_inputs;
}

inline variable_list ${node.op}_apply_functional_ivalue(
    const variable_list& grads, const ivalue_list& args) {
#ifdef C10_MOBILE
  TORCH_INTERNAL_ASSERT(false, "compiled autograd doesn't work on mobile");
#else
  auto packed_args = PackedArgs(args);
  auto needs_input_grad = packed_args.unpack<std::array<bool, ${len(node.inputs)}>>();
  % for t, n in params:
  auto ${n} = packed_args.unpack<${t}>();
  % endfor
  return ${node.op}_apply_functional(variable_list(grads), needs_input_grad${node.functional_arg_tail});
#endif
}

variable_list ${node.op}::apply(variable_list&& grads) {
  % if node.release_lines:
  std::lock_guard<std::mutex> lock(mutex_);
  % endif
${prepared}\
  return ${node.op}_apply_functional(std::move(grads), needs_input_grad${node.functional_arg_tail});
}

void ${node.op}::compiled_args(CompiledNodeArgs& args) const {
  % for m in node.members:
  ${m.collect}
  % endfor
}

variable_list ${node.op}::apply_with_saved(const variable_list& grads, SwapSavedVariables& saved) {
#ifdef C10_MOBILE
  TORCH_INTERNAL_ASSERT(false, "compiled autograd doesn't work on mobile");
#else
  % for m in node.members:
  saved.before(${m.member});
  % endfor
  static bool bound = false;
  if (!bound) {
    bound = true;
    std::vector<at::TypePtr> schema = {
      torch::dynamo::autograd::IValuePacker<std::array<bool, ${len(node.inputs)}>>::packed_type(),
  % for t, n in params:
      torch::dynamo::autograd::IValuePacker<${t}>::packed_type(),
  % endfor
    };
    const auto& compiler = torch::dynamo::autograd::getPyCompilerInterface();
    compiler->bind_function(saved.get_py_compiler(), name(), ${node.op}_apply_functional_ivalue, schema);
  }
  PackedArgs packed_args;
${prepared}\
  packed_args.pack(needs_input_grad);
  % for t, n in params:
  packed_args.pack(${n});
  % endfor
  variable_list compiled_output = call_compiled_functional(packed_args, next_edges(), saved, grads, name());
  % for m in node.members:
  saved.after(${m.member});
  % endfor
  return compiled_output;
#endif
}

${view.separator}\
% endfor
