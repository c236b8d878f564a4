${banner}
#include <torch/csrc/autograd/python_enum_tag.h>

#include <ATen/core/enum_tag.h>
#include <pybind11/pybind11.h>
#include <torch/csrc/utils/pybind.h>

namespace torch::autograd {

void initEnumTag(PyObject* module) {
  auto m = pybind11::handle(module).cast<pybind11::module>();
  pybind11::enum_<at::Tag>(m, "Tag")
% for value in view.python_values:
      ${value}
% endfor
      ;
  m.doc() = "An Enum that contains tags that can be assigned to an operator registered in C++.";
}

} // namespace torch::autograd
