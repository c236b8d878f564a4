// ATen/native/ufunc/add.h (the inner loop) is hand-written in PyTorch's source and not
// shipped in the wheel; this stand-in has its two overloads, for the compile tests.
#pragma once
#include <c10/macros/Macros.h>
#include <ATen/cpu/vec/vec.h>
namespace at::native::ufunc {
template <typename T>
C10_HOST_DEVICE inline T add(T self, T other, T alpha) { return self + alpha * other; }
template <typename T>
inline at::vec::Vectorized<T> add(
    at::vec::Vectorized<T> self, at::vec::Vectorized<T> other, at::vec::Vectorized<T> alpha) {
  return at::vec::fmadd(other, alpha, self);
}
}  // namespace at::native::ufunc
