#define TORCH_ASSERT_ONLY_METHOD_OPERATORS
${banner}
// torch.* functions bound from native_functions.yaml, shard ${view.shard_id}.  They are
// static methods of torch._C._VariableFunctions, which torch re-exports.
<%include file="_prelude.mako"/>
#include "torch/csrc/autograd/python_torch_functions.h"

namespace torch::autograd {

% for declaration in view.forward_declarations:
${declaration}
% endfor

static PyMethodDef torch_functions_shard[] = {
% for entry in view.table_entries:
  ${entry}
% endfor
};

void gatherTorchFunctions${view.shard_id}(std::vector<PyMethodDef> &torch_functions) {
  constexpr size_t num_functions = sizeof(torch_functions_shard) / sizeof(torch_functions_shard[0]);
  torch_functions.insert(
    torch_functions.end(),
    torch_functions_shard,
    torch_functions_shard + num_functions);
}

% for binding in view.bindings:
${binding}\
% endfor
} // namespace torch::autograd
