#pragma once

${banner}

#ifdef TORCH_ASSERT_NO_OPERATORS
#error This file depends on native_functions.yaml: every operator change \
  recompiles whatever includes it. Include a narrower header instead \
  (see NOTE: [Tensor vs. TensorBase]).
#endif

#if defined(AT_PER_OPERATOR_HEADERS) && defined(TORCH_ASSERT_ONLY_METHOD_OPERATORS)
#error This file pulls in every operator. Include the operator you need, \
  <ATen/ops/{operator}.h>, instead \
  (see NOTE [TORCH_ASSERT_ONLY_METHOD_OPERATORS]).
#endif

<%include file="function_includes.mako"/>
#include <c10/core/SymInt.h>
#include <c10/util/OptionalArrayRef.h>

#include <ATen/ops/from_blob.h>
#include <ATen/ops/tensor.h>

% for path in view.includes:
#include <${path}>
% endfor

namespace at {

// Free-function spellings of Tensor queries, for code written against the
// functional API.
inline int64_t numel(const Tensor& t) { return t.numel(); }
inline int64_t size(const Tensor& t, int64_t dim) { return t.size(dim); }
inline int64_t stride(const Tensor& t, int64_t dim) { return t.stride(dim); }
inline bool is_complex(const Tensor& t) { return t.is_complex(); }
inline bool is_floating_point(const Tensor& t) { return t.is_floating_point(); }
inline bool is_signed(const Tensor& t) { return t.is_signed(); }
inline bool is_inference(const Tensor& t) { return t.is_inference(); }
inline bool _is_zerotensor(const Tensor& t) { return t._is_zerotensor(); }
inline bool is_conj(const Tensor& t) { return t.is_conj(); }
inline bool is_neg(const Tensor& t) { return t.is_neg(); }
inline Tensor conj(const Tensor& t) { return t.conj(); }

// A plain int dimension would otherwise be ambiguous between the IntArrayRef
// and the optional-dimension overloads of these reductions.
inline Tensor var(const Tensor& self, int dim) { return at::var(self, IntArrayRef{dim}); }
inline Tensor std(const Tensor& self, int dim) { return at::std(self, IntArrayRef{dim}); }
inline std::tuple<Tensor, Tensor> var_mean(const Tensor& self, int dim) {
  return at::var_mean(self, IntArrayRef{dim});
}
inline std::tuple<Tensor, Tensor> std_mean(const Tensor& self, int dim) {
  return at::std_mean(self, IntArrayRef{dim});
}

} // namespace at
