${banner}
#include <torch/csrc/autograd/generated/ViewFuncs.h>

namespace torch::autograd::generated {

<%def name="state(f, items, vec, elem)">\
std::vector<${elem}> ${f.name}::get_${vec}() const {
  std::vector<${elem}> ${vec};
  ${vec}.reserve(${view.count(items)});
% for c in items:
  % if c.shape == "list":
  ${vec}.insert(${vec}.end(), ${c.name}.begin(), ${c.name}.end());
  % elif c.shape == "optional":
  if (${c.name}.has_value()) ${vec}.push_back(*${c.name});
  % else:
  ${vec}.push_back(${c.name});
  % endif
% endfor
  return ${vec};
}

size_t ${f.name}::num_${vec}() const {
  return static_cast<size_t>(${view.count(items)});
}

void ${f.name}::set_${vec}(std::vector<${elem}> ${vec}) {
  TORCH_INTERNAL_ASSERT(${vec}.size() == num_${vec}());
% if items:
  size_t i = 0;
% endif
% for c in items:
  % if c.shape == "list":
  std::copy(${vec}.begin() + i, ${vec}.begin() + i + ${c.name}.size(), ${c.name}.begin());
  i += ${c.name}.size();
  % elif c.shape == "optional":
  if (${c.name}.has_value()) {
    ${c.name} = ${vec}[i];
    i += 1;
  }
  % else:
  ${c.name} = ${vec}[i];
  i += 1;
  % endif
% endfor
}
</%def>\
% for f in view.funcs:
${state(f, f.symints, "symints", "c10::SymInt")}
${state(f, f.tensors, "tensors", "at::Tensor")}
at::Tensor ${f.name}::operator()(const at::Tensor& input_base) const {
  return ${f.call};
}

std::unique_ptr<ViewFunc> ${f.name}::clone_and_set(
    std::optional<std::vector<c10::SymInt>> symints,
    std::optional<std::vector<at::Tensor>> tensors) const {
  auto output = std::make_unique<${f.name}>(${f.clone_args});
  if (symints.has_value()) {
    output->set_symints(std::move(*symints));
  }
  if (tensors.has_value()) {
    output->set_tensors(std::move(*tensors));
  }
  return output;
}

% endfor
} // namespace torch::autograd::generated
