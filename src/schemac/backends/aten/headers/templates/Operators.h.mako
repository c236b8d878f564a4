#pragma once

${banner}

#ifdef TORCH_ASSERT_NO_OPERATORS
#error This file depends on native_functions.yaml: every operator change \
  recompiles whatever includes it. Include a narrower header instead \
  (see NOTE: [Tensor vs. TensorBase]).
#endif

#if defined(AT_PER_OPERATOR_HEADERS) && defined(TORCH_ASSERT_ONLY_METHOD_OPERATORS)
#error This file pulls in every operator. Include the operator you need, \
  <ATen/ops/{operator}_ops.h>, instead \
  (see NOTE [TORCH_ASSERT_ONLY_METHOD_OPERATORS]).
#endif

#include <c10/core/SymInt.h>
#include <c10/core/SymIntArrayRef.h>
#include <c10/core/Scalar.h>
#include <c10/core/TensorOptions.h>
#include <c10/core/QScheme.h>
#include <c10/util/OptionalArrayRef.h>
#include <tuple>
#include <vector>

% for path in view.includes:
#include <${path}>
% endfor

// Naming one overload of an operator without overload resolution:
//   ATEN_FN2(add, Tensor)   the function at::_ops::add_Tensor::call, safe to decltype
//   ATEN_FN(relu)           the same for an operator without overload name
//   ATEN_OP2(add, Tensor)   the struct itself: ::name, ::overload_name,
//                           ::schema (the C++ function type), ::schema_str
//   ATEN_OP(relu)
// The call follows the schema faithfully: out= arguments come last.
// The at::_ops names are not a stable API; use these macros.
#define ATEN_FN2(op_name, overload) at::_ops::op_name${'##'}_${'##'}overload::call
#define ATEN_FN(op_name) at::_ops::op_name::call
#define ATEN_OP2(op_name, overload) at::_ops::op_name${'##'}_${'##'}overload
#define ATEN_OP(op_name) at::_ops::op_name
