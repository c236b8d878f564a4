#pragma once

${banner}
// The inverse of every view functionalization replays: writes a mutated view
// back into its base.  PyTorch implements them by hand; declaring each one
// here makes a new view without an inverse a link error.
#include <ATen/FunctionalStorageImpl.h>
#include <ATen/Tensor.h>

namespace at {
namespace functionalization {

struct FunctionalInverses {
% for declaration in view.declarations:
${declaration}
% endfor
};

} // namespace functionalization
} // namespace at
