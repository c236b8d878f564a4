#pragma once
${banner}
// Replayable view operations (see view_funcs.py); defined in ViewFuncs.cpp.

#include <c10/core/SymIntArrayRef.h>
#include <torch/csrc/autograd/variable.h>
#include <torch/library.h>

#ifndef AT_PER_OPERATOR_HEADERS
#include <ATen/Operators.h>
#else
% for f in view.funcs:
#include <ATen/ops/${f.root}_ops.h>
% endfor
#endif

namespace torch::autograd::generated {

using at::ArrayRef;
using at::IntArrayRef;
using at::Scalar;
using at::ScalarType;
using at::Tensor;
using at::Type;
using c10::fmap;
using std::optional;

% for f in view.funcs:
#define ${f.macro}
struct ${f.name} : public torch::autograd::ViewFunc {
  ${f.name}(${f.constructor_params})${f.initializers} {}
  ~${f.name}() override = default;
  std::vector<c10::SymInt> get_symints() const override;
  size_t num_symints() const override;
  std::vector<at::Tensor> get_tensors() const override;
  size_t num_tensors() const override;
  at::Tensor operator()(const at::Tensor&) const override;
  std::unique_ptr<ViewFunc> clone_and_set(
      std::optional<std::vector<c10::SymInt>> = ::std::nullopt,
      std::optional<std::vector<at::Tensor>> = ::std::nullopt) const override;

 protected:
  void set_symints(std::vector<c10::SymInt>) override;
  void set_tensors(std::vector<at::Tensor>) override;

 private:
  % for line in f.members:
  ${line}
  % endfor
};

% endfor
} // namespace torch::autograd::generated
