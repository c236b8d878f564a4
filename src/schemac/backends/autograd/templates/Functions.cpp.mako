${banner}
// Definitions of the backward nodes declared in Functions.h.  Each node's
// gradient computation is a free function (<Node>_apply_functional) taking
// the unpacked saved values, so eager autograd (apply) and compiled autograd
// (apply_with_saved, which hands the function to the Python compiler) run the
// same formulas.  The formula helpers live in FunctionsManual.h.

#include "torch/csrc/autograd/generated/Functions.h"
#include "torch/csrc/autograd/FunctionsManual.h"
#include "torch/csrc/dynamo/compiled_autograd.h"

using namespace torch::autograd::generated::details;
using at::IntArrayRef;
using at::Scalar;
using at::Tensor;
using at::TensorList;

namespace torch::autograd::generated {

namespace {

// Compiled autograd calls the node's functional form through Python, with the
// metadata of the node's next edges so it can shape the gradients it returns.
C10_NOINLINE variable_list call_compiled_functional(
    const PackedArgs& packed_args,
    const edge_list& next_edges,
    SwapSavedVariables& saved,
    const variable_list& grads,
    const std::string& name) {
  auto metadata = torch::dynamo::autograd::IValuePacker<
      std::vector<std::optional<InputMetadata>>>::pack(
      torch::dynamo::autograd::get_input_metadata(next_edges));
  const auto& compiler = torch::dynamo::autograd::getPyCompilerInterface();
  return compiler->call_function(
      saved.get_py_compiler(), "apply_functional", name, grads, packed_args.vec(), metadata);
}

} // namespace

% for text in view.definitions:
${text}\
% endfor
} // namespace torch::autograd::generated
