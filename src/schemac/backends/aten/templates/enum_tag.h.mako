#pragma once

${banner}

#include <torch/headeronly/macros/Macros.h>

HIDDEN_NAMESPACE_BEGIN(torch, headeronly)

// The tags an operator may carry (tags.yaml), in name order.
enum class Tag {
${view.enumerators}
};

HIDDEN_NAMESPACE_END(torch, headeronly)

// Code written before the header-only split names it at::Tag.
namespace at {
using torch::headeronly::Tag;
} // namespace at
