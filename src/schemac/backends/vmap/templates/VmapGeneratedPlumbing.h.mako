#pragma once
${banner}
// functorch's plumbing between the dispatcher and its batch rules: one
// template per operator, instantiated by the rule that is registered for it.
#include <ATen/Operators.h>
#include <ATen/functorch/PlumbingHelper.h>

namespace at {
namespace functorch {

% for function in view.functions:
${function}

% endfor
} // namespace functorch
} // namespace at
