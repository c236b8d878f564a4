#define TORCH_ASSERT_NO_OPERATORS
${banner}
// The per-dtype CPU loops of ${view.plan.op} (compiled once per CPU capability).

#include <ATen/native/ufunc/${view.plan.op}.h>
#include <ATen/native/DispatchStub.h>
#include <ATen/TensorIterator.h>
#include <ATen/native/cpu/Loops.h>
#include <ATen/cpu/vec/vec.h>
#include <ATen/Dispatch.h>
#include <c10/core/Scalar.h>

namespace at {
namespace native {

namespace {

void ${view.plan.kernel}(${view.plan.kernel_params()}) {
  AT_DISPATCH_SWITCH(iter.common_dtype(), "${view.plan.stub}",
% for case in view.cases:
    AT_DISPATCH_CASE(at::ScalarType::${case.dtype}, [&]() {
%   for line in case.locals:
      ${line}
%   endfor
      ${case.runner}(iter,
        ${(',\n        ').join(case.lambdas)}
      );
    })
% endfor
  );
}

} // namespace

using ${view.plan.stub_type} = void(*)(${view.plan.stub_params()});
DECLARE_DISPATCH(${view.plan.stub_type}, ${view.plan.stub})
REGISTER_DISPATCH(${view.plan.stub}, &${view.plan.kernel})

} // namespace native
} // namespace at
