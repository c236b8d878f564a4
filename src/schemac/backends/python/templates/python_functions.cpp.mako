<%doc>
Python properties of generated autograd nodes.  Each getter reads one member
of the node (see autograd_nodes.py for how the getter kind is chosen) and
converts it to a Python object; the defs below are the conversions.
</%doc>\
<%def name="int_tuple(expr)">\
PyObject* tup = PyTuple_New(static_cast<Py_ssize_t>(${expr}.size()));
for (auto i : c10::irange(${expr}.size())) {
  PyTuple_SetItem(tup, static_cast<Py_ssize_t>(i), PyLong_FromUnsignedLong(static_cast<uint64_t>(${expr}[i])));
}
return tup;
</%def>\
<%def name="symint_tuple(expr)">\
PyObject* tup = PyTuple_New(static_cast<Py_ssize_t>(${expr}.size()));
for (auto i : c10::irange(${expr}.size())) {
  const auto& si = ${expr}[i];
  if (auto m = si.maybe_as_int()) {
    PyTuple_SetItem(tup, static_cast<Py_ssize_t>(i), PyLong_FromUnsignedLong(*m));
  } else {
    PyTuple_SetItem(tup, static_cast<Py_ssize_t>(i), py::cast(si).release().ptr());
  }
}
return tup;
</%def>\
<%def name="double_tuple(expr)">\
PyObject* tup = PyTuple_New(static_cast<Py_ssize_t>(${expr}.size()));
for (auto i : c10::irange(${expr}.size())) {
  PyTuple_SetItem(tup, static_cast<Py_ssize_t>(i), PyFloat_FromDouble(static_cast<double>(${expr}[i])));
}
return tup;
</%def>\
<%def name="symint_value(expr)">\
if (auto m = ${expr}.maybe_as_int()) {
  return PyLong_FromUnsignedLong(*m);
}
return py::cast(${expr}).release().ptr();
</%def>\
<%def name="scalar_value(expr)">\
return scalar_to_python(${expr});
</%def>\
<%def name="string_value(expr)">\
return PyUnicode_FromStringAndSize(${expr}.data(), static_cast<Py_ssize_t>(${expr}.size()));
</%def>\
<%def name="getter(node, p)">\
<% g = p.getter.value %>\
static PyObject* THP${node.op}_${p.name}_getter(THPCppFunction *self, void *_unused) {
  HANDLE_TH_ERRORS
  const auto* node = static_cast<${node.op}*>(self->cdata.get());
% if g == "saved_variable":
  return THPVariable_Wrap(node->${p.member}.unpack(self->cdata));
% elif g == "saved_variable_list":
  if (node->${p.name}_released_) {
    PyErr_SetString(PyExc_RuntimeError, ERR_BACKWARD_TWICE);
    return nullptr;
  }
  const auto& prop = node->${p.member};
  PyObject* tup = PyTuple_New(static_cast<Py_ssize_t>(prop.size()));
  for (auto i : c10::irange(prop.size())) {
    PyTuple_SetItem(tup, static_cast<Py_ssize_t>(i), THPVariable_Wrap(prop[i].unpack(self->cdata)));
  }
  return tup;
% elif g == "scalar_list":
  if (node->${p.name}_released_) {
    PyErr_SetString(PyExc_RuntimeError, ERR_BACKWARD_TWICE);
    return nullptr;
  }
  const auto& prop = node->${p.member};
  PyObject* tup = PyTuple_New(static_cast<Py_ssize_t>(prop.size()));
  for (auto i : c10::irange(prop.size())) {
    PyObject* item = scalar_to_python(prop[i]);
    if (item == nullptr) {
      Py_DECREF(tup);
      return nullptr;
    }
    PyTuple_SetItem(tup, static_cast<Py_ssize_t>(i), item);
  }
  return tup;
% elif g in ("int_list", "symint_list"):
  const auto& prop = node->${p.member};
${capture(int_tuple if g == "int_list" else symint_tuple, "prop").rstrip() | indent}
% elif g in ("optional_int_list", "optional_symint_list", "optional_double_list"):
  const auto& opt_prop = node->${p.member};
  if (!opt_prop.list.has_value()) {
    Py_RETURN_NONE;
  }
  const auto& prop = opt_prop.list.value();
<% body = {"optional_int_list": int_tuple, "optional_symint_list": symint_tuple, "optional_double_list": double_tuple}[g] %>\
${capture(body, "prop").rstrip() | indent}
% elif g.startswith("optional_"):
  const auto& opt_prop = node->${p.member};
  if (!opt_prop.has_value()) {
    Py_RETURN_NONE;
  }
  const auto& prop = opt_prop.value();
${capture(value_body, g[len("optional_"):]).rstrip() | indent}
% else:
  const auto& prop = node->${p.member};
${capture(value_body, g).rstrip() | indent}
% endif
  END_HANDLE_TH_ERRORS
}

% if p.has_raw:
static PyObject* THP${node.op}_${p.name}_raw_getter(THPCppFunction *self, void *_unused) {
  HANDLE_TH_ERRORS
  const auto* node = static_cast<${node.op}*>(self->cdata.get());
%   if g == "saved_variable":
  pybind11::object obj = pybind11::cast(node->${p.member}, pybind11::return_value_policy::reference);
  return obj.release().ptr();
%   else:
  if (node->${p.name}_released_) {
    PyErr_SetString(PyExc_RuntimeError, ERR_BACKWARD_TWICE);
    return nullptr;
  }
  const auto& prop = node->${p.member};
  PyObject* tup = PyTuple_New(static_cast<Py_ssize_t>(prop.size()));
  for (auto i : c10::irange(prop.size())) {
    pybind11::object obj = pybind11::cast(prop[i], pybind11::return_value_policy::reference);
    PyTuple_SetItem(tup, static_cast<Py_ssize_t>(i), obj.release().ptr());
  }
  return tup;
%   endif
  END_HANDLE_TH_ERRORS
}

% endif
</%def>\
<%def name="value_body(g)">\
% if g == "int64":
return PyLong_FromUnsignedLong(static_cast<int64_t>(prop));
% elif g == "symint":
${symint_value("prop")}\
% elif g == "double":
return PyFloat_FromDouble(static_cast<double>(prop));
% elif g == "boolean":
if (prop) {
  Py_RETURN_TRUE;
}
Py_RETURN_FALSE;
% elif g == "scalar":
${scalar_value("prop")}\
% elif g == "string":
${string_value("prop")}\
% endif
</%def>\
<%!
def indent(text):
    return "\n".join("  " + line if line.strip() else "" for line in text.splitlines())
%>\
#include <torch/csrc/autograd/generated/python_functions.h>

${banner}

#include <Python.h>
#include <ATen/ATen.h>

#include <c10/core/SymNodeImpl.h>
#include <c10/util/irange.h>
#include "torch/csrc/autograd/generated/Functions.h"
#include "torch/csrc/autograd/python_cpp_function.h"
#include <torch/csrc/autograd/python_variable.h>
#include <torch/csrc/autograd/saved_variable.h>
#include <torch/csrc/utils/pybind.h>
#include <pybind11/pybind11.h>

namespace torch::autograd::generated {

namespace {

// A Scalar as the Python number of the same kind.
PyObject* scalar_to_python(const at::Scalar& value) {
  if (value.isComplex()) {
    auto z = value.to<c10::complex<double>>();
    return PyComplex_FromDoubles(z.real(), z.imag());
  }
  if (value.isFloatingPoint()) {
    return PyFloat_FromDouble(value.to<double>());
  }
  if (value.isIntegral(/*includeBool=*/false)) {
    return PyLong_FromLong(value.to<int64_t>());
  }
  if (value.isBoolean()) {
    return PyBool_FromLong(value.to<bool>());
  }
  PyErr_SetString(PyExc_RuntimeError, "Unknown scalar type");
  return nullptr;
}

// Creates the Python type of node class C and registers it for C++ -> Python wrapping.
template <typename C>
void add_node_class(PyObject* module, PyTypeObject& type, const char* name, PyGetSetDef* properties) {
  _initFunctionPyTypeObject(type, name, properties, nullptr);
  Py_INCREF(&type);
  PyModule_AddObject(module, name, reinterpret_cast<PyObject*>(&type));
  registerCppFunction(typeid(C), &type);
}

} // namespace

% for node in view.nodes:
% for p in node.properties:
${getter(node, p)}\
% endfor
static struct PyGetSetDef ${node.op}_properties[] = {
  THP_FUNCTION_DEFAULT_PROPERTIES,
% for p in node.properties:
  {(char*)"_saved_${p.name}", (getter)THP${node.op}_${p.name}_getter, nullptr, nullptr, nullptr},
%   if p.has_raw:
  {(char*)"_raw_saved_${p.name}", (getter)THP${node.op}_${p.name}_raw_getter, nullptr, nullptr, nullptr},
%   endif
% endfor
  {nullptr} /* sentinel */
};

% endfor
void initialize_autogenerated_functions${view.shard_id}(PyObject* module) {
% for node in view.nodes:
  static PyTypeObject ${node.op}Class;
  add_node_class<${node.op}>(module, ${node.op}Class, "${node.op}", ${node.op}_properties);
% endfor
}

} // namespace torch::autograd::generated
