#pragma once
${banner}
// Helpers the generated Autograd kernels share with the hand-written ones in
// torch/csrc/autograd/VariableTypeManual.cpp, which defines them.

#include <ATen/Context.h>
#include <ATen/core/Tensor.h>
#include <c10/util/intrusive_ptr.h>
#include <torch/csrc/Export.h>
#include <torch/csrc/autograd/autograd_not_implemented_fallback.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace at {
struct Quantizer;
} // namespace at

namespace torch::autograd {

using Variable = at::Tensor;
using at::Context;
using at::Device;
using at::Generator;
using at::IntArrayRef;
using at::MemoryFormat;
using at::QScheme;
using at::Quantizer;
using at::Scalar;
using at::ScalarType;
using at::Storage;
using at::Tensor;
using at::TensorList;
using at::TensorOptions;
using std::optional;

namespace VariableType {
TORCH_API std::vector<at::DeprecatedTypeProperties*> allCUDATypes();
TORCH_API std::vector<at::DeprecatedTypeProperties*> allXPUTypes();
TORCH_API std::vector<at::DeprecatedTypeProperties*> allCPUTypes();
TORCH_API std::vector<at::DeprecatedTypeProperties*> allPrivateUser1Types();

// Check that a tensor argument is defined (an undefined one names its
// position in the error) and give it back for the redispatch.
at::Tensor& unpack(Tensor& t, const char* name, int pos);
const at::Tensor& unpack(const Tensor& t, const char* name, int pos);
at::Tensor unpack_opt(const Tensor& t, const char* name, int pos);
std::vector<at::Tensor> unpack(const at::ITensorListRef& tl, const char* name, int pos);
} // namespace VariableType

} // namespace torch::autograd
