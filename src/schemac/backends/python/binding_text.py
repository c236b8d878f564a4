"""The C++ of one ``THPVariable_<name>`` function, printed from its :class:`BindingView`.

A binding parses its Python arguments against the operator's parser
signatures, hands a ``__torch_function__`` override on, and runs the case of
the signature that matched (case_body.py prints each case's statements).
The file skeletons (``python_*_functions.cpp.mako``) paste the printed
bindings; they are built here rather than by a template def, because a
binding is mostly the case bodies it indents and ~1,700 template def calls
per compile cost more than the lines themselves.
"""

from __future__ import annotations

from schemac.backends.python.bindings import BindingView

#: How a method without arguments asks whether ``self`` overrides
#: ``__torch_function__``; releases without ``python_method_has_torch_function``
#: (2.12 and older) declare only the older spelling.
HAS_TORCH_FUNCTION = "if (has_torch_function(self_))"
CHECK_HAS_TORCH_FUNCTION = "if(check_has_torch_function(self_))"


def binding_text(view: BindingView, *, torch_function_test: str = HAS_TORCH_FUNCTION) -> str:
    """The binding function, ending with a blank line."""
    arguments = "PyObject* self_, PyObject* args"
    if not view.takes_no_arguments:
        arguments += ", PyObject* kwargs"
    lines = [
        f"// {view.name}",
        f"static PyObject * {view.cpp_name}({arguments})",
        "{",
        "  HANDLE_TH_ERRORS",
    ]
    lines.extend(
        f"  static PyTypeObject* {local} = generated::{getter}();"
        for local, getter in view.structseq_locals
    )
    if view.method:
        lines.append("  const Tensor& self = THPVariable_Unpack(self_);")
    head = "\n".join(lines) + "\n"
    if view.takes_no_arguments:
        return head + _no_arguments_body(view, torch_function_test) + "}\n\n"
    return head + _parsed_body(view) + "}\n\n"


def _no_arguments_body(view: BindingView, torch_function_test: str) -> str:
    if view.method:
        check = (
            f"  {torch_function_test} {{\n"
            f'    return handle_torch_function(self_, "{view.name}");\n'
            "  }\n"
        )
    else:
        check = "\n"
    return check + view.cases[0].text(2) + "  END_HANDLE_TH_ERRORS\n"


def _parsed_body(view: BindingView) -> str:
    traceable = "true" if view.traceable else "false"
    this = view.self_argument
    lines = [
        "  static PythonArgParser parser({",
        *(f"    {text}," for text in view.parser_strings),
        f"  }}, /*traceable=*/{traceable});",
        "",
        f"  ParsedArgs<{view.max_arguments}> parsed_args;",
        f"  auto _r = parser.parse({this}, args, kwargs, parsed_args);",
        "  if(_r.has_torch_function()) {",
        f"    return handle_torch_function(_r, {this}, args, kwargs, {view.module_object},"
        f' "{view.qualified_module}");',
        "  }",
    ]
    parts = ["\n".join(lines), "\n"]
    if view.single_case:
        parts.append(view.cases[0].text(2))
    else:
        parts.append("  switch (_r.idx) {\n")
        for case in view.cases:
            parts += [f"    case {case.index}: {{\n", case.text(6), "    }\n"]
        parts.append("  }\n")
    parts.append("  Py_RETURN_NONE;\n  END_HANDLE_TH_ERRORS\n")
    return "".join(parts)
