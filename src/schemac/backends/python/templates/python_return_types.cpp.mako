${banner}
#include <Python.h>

#include "torch/csrc/autograd/generated/python_return_types.h"
#include "torch/csrc/utils/structseq.h"
#include "torch/csrc/Exceptions.h"

namespace torch::autograd::generated {

% for seq in view.types:
PyTypeObject* ${seq.getter}() {
  static PyStructSequence_Field fields[] = { ${view.fields_initializer(seq)},  {nullptr} };
  static PyTypeObject ${seq.type_variable};
  static bool is_initialized = false;
  static PyStructSequence_Desc desc = { "torch.return_types.${seq.name}", nullptr, fields, ${len(seq.fields)} };
  if (!is_initialized) {
    PyStructSequence_InitType(&${seq.type_variable}, &desc);
    ${seq.type_variable}.tp_repr = (reprfunc)torch::utils::returned_structseq_repr;
    is_initialized = true;
  }
  return &${seq.type_variable};
}

% endfor
} // namespace torch::autograd::generated

namespace torch::autograd {

// Keeps a reference: the type must outlive a user deleting the module attribute.
static void add_return_type(PyObject* module, const char* name, PyTypeObject* type) {
  Py_INCREF(type);
  if (PyModule_AddObject(module, name, reinterpret_cast<PyObject*>(type)) != 0) {
    Py_DECREF(type);
    throw python_error();
  }
}

void initReturnTypes(PyObject* module) {
  static struct PyModuleDef def = {
      PyModuleDef_HEAD_INIT, "torch._C._return_types", nullptr, -1, {}};
  PyObject* return_types = PyModule_Create(&def);
  if (!return_types) {
    throw python_error();
  }
% for seq in view.types:
  add_return_type(return_types, "${seq.name}", generated::${seq.getter}());
% endfor
  if (PyModule_AddObject(module, "_return_types", return_types) != 0) {
    Py_DECREF(return_types);
    throw python_error();
  }
}

} // namespace torch::autograd
