#pragma once
${banner}
// Getters for the torch.return_types.* named-tuple types.

#include <Python.h>

namespace torch::autograd {
namespace generated {

% for seq in view.types:
PyTypeObject* ${seq.getter}();
% endfor

} // namespace generated

void initReturnTypes(PyObject* module);

} // namespace torch::autograd
