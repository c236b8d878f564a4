${banner}
// Python bindings (with pickling) of the ViewMeta classes, for torch._C._functionalization.
#include <ATen/ViewMetaClasses.h>
#include <torch/csrc/functionalization/Module.h>

namespace torch::functionalization {

void initGenerated(PyObject* module) {
  auto functionalization = py::handle(module).cast<py::module>();
% for line in view.bindings:
  ${line}
% endfor
}

} // namespace torch::functionalization
