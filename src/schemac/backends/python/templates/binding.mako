<%doc>One THPVariable_<name> binding; file skeletons call binding(view) per operator.</%doc>\
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
${view.cases[0].text(2)}\
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
${view.cases[0].text(2)}\
%   else:
  switch (_r.idx) {
%     for k in view.cases:
    case ${k.index}: {
${k.text(6)}\
    }
%     endfor
  }
%   endif
  Py_RETURN_NONE;
  END_HANDLE_TH_ERRORS
% endif
}

</%def>\
