${banner}
// The kernels ${view.namespace}::${view.root} dispatches to, with ATen's native signatures:
// a definition that does not match its schema is a compile error.
#pragma once
#include <ATen/core/Tensor.h>
#include <c10/core/Scalar.h>
#include <c10/core/SymInt.h>
#include <c10/util/ArrayRef.h>
% if view.declarations.structured:
#include <ATen/TensorMeta.h>
% endif
#include <optional>
#include <string_view>
#include <tuple>
#include <vector>
% for block in view.declarations.blocks:

${block}\
% endfor
