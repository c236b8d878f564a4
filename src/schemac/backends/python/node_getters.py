"""The C++ getters behind ``grad_fn._saved_<name>`` (and ``_raw_saved_<name>``).

Each property of an autograd node's Python type reads one data member of the
node and converts it to a Python object; :class:`Getter` (autograd_nodes.py)
says how.  The getters are printed here and pasted by
python_functions.cpp.mako: ~1,800 of them per compile, which as template
defs with captured, re-indented bodies cost more than building the lines.
"""

from __future__ import annotations

from schemac.backends.python.autograd_nodes import Getter, NodeProperty

#: What a getter does with ``prop``, the member's value, for plain values.
_VALUE_BODIES: dict[str, tuple[str, ...]] = {
    "int64": ("return PyLong_FromUnsignedLong(static_cast<int64_t>(prop));",),
    "symint": (
        "if (auto m = prop.maybe_as_int()) {",
        "  return PyLong_FromUnsignedLong(*m);",
        "}",
        "return py::cast(prop).release().ptr();",
    ),
    "double": ("return PyFloat_FromDouble(static_cast<double>(prop));",),
    "boolean": ("if (prop) {", "  Py_RETURN_TRUE;", "}", "Py_RETURN_FALSE;"),
    "scalar": ("return scalar_to_python(prop);",),
    "string": (
        "return PyUnicode_FromStringAndSize(prop.data(), static_cast<Py_ssize_t>(prop.size()));",
    ),
}


def _tuple_of(item: str) -> tuple[str, ...]:
    """A Python tuple of ``prop``'s elements, each converted by ``item`` (of ``prop[i]``)."""
    return (
        "PyObject* tup = PyTuple_New(static_cast<Py_ssize_t>(prop.size()));",
        "for (auto i : c10::irange(prop.size())) {",
        f"  PyTuple_SetItem(tup, static_cast<Py_ssize_t>(i), {item});",
        "}",
        "return tup;",
    )


_INT_TUPLE = _tuple_of("PyLong_FromUnsignedLong(static_cast<uint64_t>(prop[i]))")
_DOUBLE_TUPLE = _tuple_of("PyFloat_FromDouble(static_cast<double>(prop[i]))")
_SYMINT_TUPLE = (
    "PyObject* tup = PyTuple_New(static_cast<Py_ssize_t>(prop.size()));",
    "for (auto i : c10::irange(prop.size())) {",
    "  const auto& si = prop[i];",
    "  if (auto m = si.maybe_as_int()) {",
    "    PyTuple_SetItem(tup, static_cast<Py_ssize_t>(i), PyLong_FromUnsignedLong(*m));",
    "  } else {",
    "    PyTuple_SetItem(tup, static_cast<Py_ssize_t>(i), py::cast(si).release().ptr());",
    "  }",
    "}",
    "return tup;",
)
_LIST_BODIES: dict[str, tuple[str, ...]] = {
    "int_list": _INT_TUPLE,
    "symint_list": _SYMINT_TUPLE,
    "optional_int_list": _INT_TUPLE,
    "optional_symint_list": _SYMINT_TUPLE,
    "optional_double_list": _DOUBLE_TUPLE,
}


def _released_check(p: NodeProperty) -> list[str]:
    return [
        f"  if (node->{p.name}_released_) {{",
        "    PyErr_SetString(PyExc_RuntimeError, ERR_BACKWARD_TWICE);",
        "    return nullptr;",
        "  }",
    ]


def _indented(lines: tuple[str, ...]) -> list[str]:
    return [f"  {line}" if line.strip() else "" for line in lines]


def _reading(p: NodeProperty) -> list[str]:
    """The statements between the node cast and END_HANDLE_TH_ERRORS."""
    g = p.getter
    member = p.member
    if g is Getter.saved_variable:
        return [f"  return THPVariable_Wrap(node->{member}.unpack(self->cdata));"]
    if g is Getter.saved_variable_list:
        return [
            *_released_check(p),
            f"  const auto& prop = node->{member};",
            *_indented(_tuple_of("THPVariable_Wrap(prop[i].unpack(self->cdata))")),
        ]
    if g is Getter.scalar_list:
        return [
            *_released_check(p),
            f"  const auto& prop = node->{member};",
            "  PyObject* tup = PyTuple_New(static_cast<Py_ssize_t>(prop.size()));",
            "  for (auto i : c10::irange(prop.size())) {",
            "    PyObject* item = scalar_to_python(prop[i]);",
            "    if (item == nullptr) {",
            "      Py_DECREF(tup);",
            "      return nullptr;",
            "    }",
            "    PyTuple_SetItem(tup, static_cast<Py_ssize_t>(i), item);",
            "  }",
            "  return tup;",
        ]
    kind = g.value
    if kind in ("int_list", "symint_list"):
        return [f"  const auto& prop = node->{member};", *_indented(_LIST_BODIES[kind])]
    if kind in _LIST_BODIES:
        return [
            f"  const auto& opt_prop = node->{member};",
            "  if (!opt_prop.list.has_value()) {",
            "    Py_RETURN_NONE;",
            "  }",
            "  const auto& prop = opt_prop.list.value();",
            *_indented(_LIST_BODIES[kind]),
        ]
    if kind.startswith("optional_"):
        return [
            f"  const auto& opt_prop = node->{member};",
            "  if (!opt_prop.has_value()) {",
            "    Py_RETURN_NONE;",
            "  }",
            "  const auto& prop = opt_prop.value();",
            *_indented(_VALUE_BODIES[kind.removeprefix("optional_")]),
        ]
    return [f"  const auto& prop = node->{member};", *_indented(_VALUE_BODIES[kind])]


def _raw_reading(p: NodeProperty) -> list[str]:
    """``_raw_saved_<name>``: the SavedVariable(s) themselves, not unpacked."""
    if p.getter is Getter.saved_variable:
        return [
            f"  pybind11::object obj = pybind11::cast(node->{p.member},"
            " pybind11::return_value_policy::reference);",
            "  return obj.release().ptr();",
        ]
    return [
        *_released_check(p),
        f"  const auto& prop = node->{p.member};",
        "  PyObject* tup = PyTuple_New(static_cast<Py_ssize_t>(prop.size()));",
        "  for (auto i : c10::irange(prop.size())) {",
        "    pybind11::object obj = pybind11::cast(prop[i],"
        " pybind11::return_value_policy::reference);",
        "    PyTuple_SetItem(tup, static_cast<Py_ssize_t>(i), obj.release().ptr());",
        "  }",
        "  return tup;",
    ]


def _function(op: str, name: str, body: list[str]) -> list[str]:
    return [
        f"static PyObject* THP{op}_{name}(THPCppFunction *self, void *_unused) {{",
        "  HANDLE_TH_ERRORS",
        f"  const auto* node = static_cast<{op}*>(self->cdata.get());",
        *body,
        "  END_HANDLE_TH_ERRORS",
        "}",
        "",
    ]


def getters_text(op: str, properties: tuple[NodeProperty, ...]) -> str:
    """The getter functions of node class ``op``'s properties, each followed by a blank line."""
    lines: list[str] = []
    for p in properties:
        lines += _function(op, f"{p.name}_getter", _reading(p))
        if p.has_raw:
            lines += _function(op, f"{p.name}_raw_getter", _raw_reading(p))
    # One join rather than a formatted string per line (~25,000 lines per compile).
    return "\n".join(lines) + "\n" if lines else ""
