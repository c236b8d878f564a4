#define TORCH_ASSERT_NO_OPERATORS
${banner}
// The CUDA kernel of ${view.plan.op}: one functor per loop kind, chosen per
// dtype; a CPU-scalar operand is captured in the functor instead of read.

#include <ATen/native/ufunc/${view.plan.op}.h>
#include <ATen/Dispatch.h>
#include <ATen/native/DispatchStub.h>
#include <c10/core/Scalar.h>
#include <ATen/native/cuda/Loops.cuh>

<%
plan = view.plan
impl = view.plan.cuda
%>\
<%include file="_structs.mako"/>
% for f in view.functors:

template <typename scalar_t>
struct ${f.name} {
  using opmath_t = at::opmath_type<scalar_t>;
%   for member in f.members:
  ${member}
%   endfor
  ${f.name}(${f.constructor_params})${' : ' + f.initializers if f.initializers else ''} {}
  __device__ scalar_t operator()(${f.operands}) const {
    return ${f.call};
  }
};
% endfor

using ${view.plan.stub_type} = void(*)(${view.plan.stub_params()});
DECLARE_DISPATCH(${view.plan.stub_type}, ${view.plan.stub})

void ${view.plan.kernel}(${view.plan.kernel_params()}) {
  AT_DISPATCH_SWITCH(iter.common_dtype(), "${view.plan.cuda.kernel}",
% for case in view.cases:
    AT_DISPATCH_CASE(at::ScalarType::${case.dtype}, [&]() {
      using opmath_t = at::opmath_type<scalar_t>;
%   for operand, functor, arguments in case.scalar_operand_branches:
      ${'if' if loop.first else '} else if'} (iter.is_cpu_scalar(${operand})) {
        ${functor} ufunctor(${arguments});
        iter.remove_operand(${operand});
        gpu_kernel(iter, ufunctor);
%   endfor
%   if case.general is not None:
%     if case.scalar_operand_branches:
      } else {
        gpu_kernel(iter, ${case.general});
      }
%     else:
      gpu_kernel(iter, ${case.general});
%     endif
%   elif case.scalar_operand_branches:
      } else {
        TORCH_INTERNAL_ASSERT(false, "${view.plan.op}: no CUDA loop for two tensor operands");
      }
%   endif
    })
% endfor
  );
}
REGISTER_DISPATCH(${view.plan.stub}, &${view.plan.kernel})

${view.plan.cuda.impl_func_defn()} {
  ${view.plan.kernel}(*this${''.join(', ' + s for s in view.plan.scalar_names())});
}

} // namespace native
} // namespace at
