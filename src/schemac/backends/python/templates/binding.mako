<%doc>One THPVariable_<name> binding; file skeletons call binding(view) per operator.</%doc>\
<%def name="call(c)">\
${c.schema_comment}
% for name, expr in c.locals:
auto ${name} = ${expr};
% endfor
% if c.options is not None:
const auto options = TensorOptions()
    .dtype(${c.options.dtype})
    .device(${c.options.device})
    .layout(${c.options.layout})
    .requires_grad(${c.options.requires_grad})
    .pinned_memory(${c.options.pin_memory});
%   if c.options.method:
if (!at::impl::tensor_has_dispatch(self)) {
  torch::utils::maybe_initialize_device(options);
}
%   else:
torch::utils::maybe_initialize_device(options);
%   endif
% endif
% if c.out_check is not None:
check_out_type_matches(${c.out_check.out}, ${c.out_check.dtype},
                       ${c.out_check.dtype_is_none}, ${c.out_check.layout},
                       ${c.out_check.device}, ${c.out_check.device_is_none});
% endif
% if c.gap_before_lambda:

% endif
auto ${c.lambda_name} = [](${c.lambda_params}) -> ${c.lambda_return} {
  pybind11::gil_scoped_release no_gil;
% if c.returns_void:
  ${c.callee}(${c.callee_args});
% else:
  return ${c.callee}(${c.callee_args});
% endif
};
% if c.returns_void:
${c.lambda_name}(${c.lambda_args})${c.result_suffix};
%   if c.returns_first_argument:
PyObject* self_tensorlist = _r.args[0];
Py_INCREF(self_tensorlist);
return self_tensorlist;
%   else:
Py_RETURN_NONE;
%   endif
% else:
return wrap(${c.structseq_prefix}${c.lambda_name}(${c.lambda_args})${c.result_suffix});
% endif
</%def>\
<%def name="case_body(k)">\
% if k.out_call is None:
${call(k.call)}\
% else:
if (_r.isNone(${k.out_index})) {
${indent(capture(call, k.call), 2)}\
} else {
${indent(capture(call, k.out_call), 2)}\
}
% endif
</%def>\
<%!
def indent(text, n):
    pad = " " * n
    return "".join(pad + line + "\n" if line.strip() else "\n" for line in text.splitlines())
%>\
<%def name="binding(view)">\
// ${view.name}
% if view.takes_no_arguments:
static PyObject * ${view.cpp_name}(PyObject* self_, PyObject* args)
% else:
static PyObject * ${view.cpp_name}(PyObject* self_, PyObject* args, PyObject* kwargs)
% endif
{
  HANDLE_TH_ERRORS
% for local, getter in view.structseq_locals:
  static PyTypeObject* ${local} = generated::${getter}();
% endfor
% if view.method:
  const Tensor& self = THPVariable_Unpack(self_);
% endif
% if view.takes_no_arguments:
%   if view.method:
  if (has_torch_function(self_)) {
    return handle_torch_function(self_, "${view.name}");
  }
%   else:

%   endif
${indent(capture(case_body, view.cases[0]), 2)}\
  END_HANDLE_TH_ERRORS
% else:
  static PythonArgParser parser({
%   for text in view.parser_strings:
    ${text},
%   endfor
  }, /*traceable=*/${"true" if view.traceable else "false"});

  ParsedArgs<${view.max_arguments}> parsed_args;
  auto _r = parser.parse(${view.self_argument}, args, kwargs, parsed_args);
  if(_r.has_torch_function()) {
    return handle_torch_function(_r, ${view.self_argument}, args, kwargs, ${view.module_object}, "${view.qualified_module}");
  }
%   if view.single_case:
${indent(capture(case_body, view.cases[0]), 2)}\
%   else:
  switch (_r.idx) {
%     for k in view.cases:
    case ${k.index}: {
${indent(capture(case_body, k), 6)}\
    }
%     endfor
  }
%   endif
  Py_RETURN_NONE;
  END_HANDLE_TH_ERRORS
% endif
}

</%def>\
