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

% for text in view.declarations:
${text}\
% endfor
} // namespace torch::autograd::generated
