<%doc>Includes and using-declarations shared by every binding file.</%doc>\
#include <Python.h>

// MSVC's pyconfig.h defines copysign as a macro, which breaks at::copysign.
#ifdef _MSC_VER
#undef copysign
#endif

#include "torch/csrc/Device.h"
#include "torch/csrc/Dtype.h"
#include "torch/csrc/DynamicTypes.h"
#include "torch/csrc/Exceptions.h"
#include "torch/csrc/Size.h"
#include "torch/csrc/autograd/generated/python_return_types.h"
#include "torch/csrc/autograd/generated/variable_factories.h"
#include "torch/csrc/autograd/python_variable.h"
#include "torch/csrc/autograd/utils/python_arg_parsing.h"
#include "torch/csrc/autograd/utils/wrap_outputs.h"
#include "torch/csrc/jit/frontend/tracer.h"
#include "torch/csrc/utils/device_lazy_init.h"
#include "torch/csrc/utils/out_types.h"
#include "torch/csrc/utils/pybind.h"
#include "torch/csrc/utils/pycfunction_helpers.h"
#include "torch/csrc/utils/python_arg_parser.h"
#include "torch/csrc/utils/structseq.h"
#include "torch/csrc/utils/tensor_layouts.h"
#include "torch/csrc/utils/tensor_memoryformats.h"

#include <ATen/core/Tensor.h>

#ifndef AT_PER_OPERATOR_HEADERS
#include <ATen/Functions.h>
#else
% for header in view.operator_headers:
#include <ATen/ops/${header}.h>
% endfor
#endif

using at::ArrayRef;
using at::Backend;
using at::Device;
using at::DeviceGuard;
using at::Generator;
using at::IntArrayRef;
using at::Layout;
using at::MemoryFormat;
using at::OptionalDeviceGuard;
using at::Scalar;
using at::ScalarType;
using at::Tensor;
using at::TensorList;
using at::TensorOptions;
using torch::utils::check_out_type_matches;
using namespace torch::autograd::utils;
