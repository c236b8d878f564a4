#define TORCH_ASSERT_NO_OPERATORS
${banner}
// The CPU kernel of ${view.op}: the structured impl calls the dispatch stub,
// which UfuncCPUKernel_${view.op}.cpp (compiled per CPU capability) fills.

#include <ATen/native/DispatchStub.h>
#include <ATen/TensorIterator.h>
#include <ATen/TensorMeta.h>

<%
plan = view
impl = view.cpu
%>\
<%include file="_structs.mako"/>

using ${view.stub_type} = void(*)(${view.stub_params()});
DECLARE_DISPATCH(${view.stub_type}, ${view.stub})
DEFINE_DISPATCH(${view.stub});

${view.cpu.impl_func_defn()} {
  ${view.stub}(device_type(), *this${''.join(', ' + s for s in view.scalar_names())});
}

} // namespace native
} // namespace at
