${banner}
#include <ATen/core/ATenOpList.h>

#include <ATen/core/operator_name.h>

#include <algorithm>
#include <array>
#include <string_view>
#include <utility>

namespace at {

namespace {

using OperatorNameView = std::pair<std::string_view, std::string_view>;

// (qualified name, overload name) of every operator in the operator library,
// sorted by byte value so that is_custom_op can binary-search it.
constexpr std::array<OperatorNameView, ${view.count}> kLibraryOperators{{
% for entry in view.entries:
    ${entry},
% endfor
}};

} // namespace

bool is_custom_op(const c10::OperatorName& opName) {
  const OperatorNameView key{opName.name, opName.overload_name};
  return !std::binary_search(
      kLibraryOperators.begin(), kLibraryOperators.end(), key);
}

} // namespace at
