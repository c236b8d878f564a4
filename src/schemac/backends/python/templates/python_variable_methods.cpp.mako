#define TORCH_ASSERT_ONLY_METHOD_OPERATORS
${banner}
// Tensor methods bound from native_functions.yaml (torch.Tensor.<name>).
<%include file="_prelude.mako"/>
#include <ATen/core/TorchDispatchUtils.h>

namespace torch::autograd {

// Python's binary operators must return NotImplemented rather than raise
// TypeError, so that the interpreter goes on to try the other operand's
// reflected operator.  The table wraps dunder bindings in this adapter.
template <PyObject* (*Binding)(PyObject*, PyObject*, PyObject*)>
static PyObject* TypeError_to_NotImplemented_(PyObject* self, PyObject* args, PyObject* kwargs) {
  PyObject* result = Binding(self, args, kwargs);
  if (result == nullptr && PyErr_ExceptionMatches(PyExc_TypeError)) {
    PyErr_Clear();
    result = Py_NewRef(Py_NotImplemented);
  }
  return result;
}

% for binding in view.bindings:
${binding}\
% endfor
// The generated part of torch.Tensor's method table.  PyTorch adds its
// hand-written methods (size, to, __add__ ...) alongside these.
PyMethodDef variable_methods[] = {
% for entry in view.table_entries:
  ${entry}
% endfor
  {nullptr}
};

} // namespace torch::autograd
