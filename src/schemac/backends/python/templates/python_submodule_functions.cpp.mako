#define TORCH_ASSERT_ONLY_METHOD_OPERATORS
${banner}
// ${view.qualified_name} functions bound from native_functions.yaml (python_module: ${view.short_name}).
<%include file="_prelude.mako"/>

namespace torch::autograd {

static PyObject* ${view.module_object} = nullptr;

% for declaration in view.forward_declarations:
${declaration}
% endfor

static PyMethodDef ${view.table_name}[] = {
% for entry in view.table_entries:
  ${entry}
% endfor
  {nullptr}
};

void ${view.init_function}(PyObject* module) {
  static struct PyModuleDef def = {
     PyModuleDef_HEAD_INIT,
     "torch._C.${view.attribute}",
     nullptr,
     -1,
     ${view.table_name}
  };
  PyObject* submodule = PyModule_Create(&def);
  ${view.module_object} = submodule;
  if (!submodule) {
    throw python_error();
  }
  // PyModule_AddObject steals the reference on success.
  if (PyModule_AddObject(module, "${view.attribute}", submodule) != 0) {
    throw python_error();
  }
}

% for binding in view.bindings:
${binding}\
% endfor
} // namespace torch::autograd
