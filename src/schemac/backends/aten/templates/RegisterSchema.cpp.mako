${banner}
// Defines every operator's schema with the dispatcher; kernels are registered
// per dispatch key in the Register<Key>.cpp files.
#define TORCH_ASSERT_ONLY_METHOD_OPERATORS
#include <torch/library.h>

namespace at {
% for library in view.libraries:

${library.macro}(${library.namespace}, m) {
% for line in library.lines:
  ${line}
% endfor
}
% endfor

} // namespace at
