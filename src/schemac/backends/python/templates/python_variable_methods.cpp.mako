#define TORCH_ASSERT_ONLY_METHOD_OPERATORS
// ${banner}
// Tensor methods bound from native_functions.yaml (torch.Tensor.<name>).
<%include file="_prelude.mako"/>

namespace torch::autograd {

% for text in view.bindings:
${text}\
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
