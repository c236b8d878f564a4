#pragma once
${banner}
// Backward nodes of every differentiable operator (derivatives.yaml): one
// struct per node, holding what the forward call saved for the backward
// formulas.  Their definitions are in Functions.cpp.

#include <ATen/ATen.h>
#include <ATen/TensorGeometry.h>
#include <ATen/core/functional.h>
#include <c10/core/SymIntArrayRef.h>
#include <torch/csrc/Export.h>

#include "torch/csrc/autograd/function.h"
#include "torch/csrc/autograd/saved_variable.h"
#include "torch/csrc/autograd/variable.h"

namespace torch::autograd::generated {

using at::ArrayRef;
using at::IntArrayRef;
using at::Scalar;
using at::ScalarType;
using at::Tensor;
using at::TensorGeometry;
using at::Type;
using c10::fmap;
using std::optional;
using torch::autograd::TypeAndSize;

// Saved tensor lists come back as plain tensors; an output's SavedVariable
// needs the node that owns it (saved_for) to rebuild its grad_fn.
inline std::vector<Tensor> unpack_list(
    at::ArrayRef<SavedVariable> saved, ${view.pointers.of("Node")} saved_for = nullptr) {
  std::vector<Tensor> tensors;
  tensors.reserve(saved.size());
  for (const SavedVariable& variable : saved) {
    tensors.emplace_back(variable.unpack(saved_for));
  }
  return tensors;
}

// Tensor?[] arguments: an undefined saved tensor stands for None.
inline c10::List<std::optional<Tensor>> unpack_opt_list(
    at::ArrayRef<SavedVariable> saved, ${view.pointers.of("Node")} saved_for = nullptr) {
  torch::List<std::optional<Tensor>> tensors;
  tensors.reserve(saved.size());
  for (const SavedVariable& variable : saved) {
    Tensor tensor = variable.unpack(saved_for);
    tensors.push_back(tensor.defined() ? std::optional<Tensor>(tensor) : ::std::nullopt);
  }
  return tensors;
}

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

% endfor
} // namespace torch::autograd::generated
