${banner}
// Autograd kernels (shard ${view.shard}): see docs/autograd.md.

#include "torch/csrc/autograd/VariableTypeUtils.h"
#include "torch/csrc/autograd/generated/VariableType.h"
#include "torch/csrc/autograd/FunctionsManual.h"

#include <ATen/core/TorchDispatchUtils.h>
#include <c10/core/impl/TorchDispatchModeTLS.h>
#include <torch/library.h>

% for header in view.headers:
#include <ATen/ops/${header}_ops.h>
% endfor

using namespace at;
using namespace torch::autograd::generated;
using namespace torch::autograd::generated::details;

namespace torch::autograd {

namespace VariableType {
namespace {
% for k in view.kernels:

${k.head} {
  % for line in k.unpacks:
  ${line}
  % endfor
  % if k.options:
  ${k.options}
  % endif
  % if k.out_error:
  if (compute_requires_grad(${', '.join(k.out_error_args)})) {
    throw_error_out_requires_grad("${k.out_error}");
  }
  % endif
  % if k.grad_inputs:
  [[maybe_unused]] auto _any_requires_grad = compute_requires_grad(${', '.join(k.grad_inputs)});
  % for line in k.inplace_checks:
  ${line}
  % endfor
  c10::intrusive_ptr<${k.node_type}> grad_fn;
  if (_any_requires_grad) {
    % if k.not_implemented:
    grad_fn = c10::make_intrusive<NotImplemented>("${k.not_implemented}");
    % else:
    grad_fn = c10::make_intrusive<${k.node}>();
    % endif
    grad_fn->set_next_edges(collect_next_edges(${', '.join(k.grad_inputs)}));
    % for line in k.saves_before:
    ${line}
    % endfor
  }
  % endif
  % if k.returns_void or not k.results:
  {
    at::AutoDispatchBelowADInplaceOrView guard;
    ${k.call};
  }
  % else:
  auto _tmp = ([&]() {
    at::AutoDispatchBelowADInplaceOrView guard;
    return ${k.call};
  })();
  ${k.binding}
  % endif
  % if k.history:
  if (grad_fn) {
    ${'rebase_history' if k.rebase else 'set_history'}(flatten_tensor_args(${', '.join(k.history)}), grad_fn);
  }
  % endif
  % if k.saves_after:
  if (grad_fn) {
    % for line in k.saves_after:
    ${line}
    % endfor
  }
  % endif
  % if not k.returns_void:
  return ${k.return_expr};
  % endif
}
% endfor

} // namespace
} // namespace VariableType

namespace {
% for block in view.registrations:

TORCH_LIBRARY_IMPL(aten, ${block.key}, m) {
  % for line in block.lines:
  ${line}
  % endfor
}
% endfor

} // namespace

} // namespace torch::autograd
