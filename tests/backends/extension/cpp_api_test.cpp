// Calls every toyext operator through the generated typed C++ API
// (<toyext/ops.h>, header-only) and compares with plain ATen.  Built as its
// own small library by test_extension_build.py; `toyext_cpp_test::run()`
// returns how many operator overloads it checked.
#include <ATen/ATen.h>
#include <torch/library.h>

#include <toyext/ops.h>

namespace {

void expect_close(const at::Tensor& got, const at::Tensor& want, const char* what) {
  TORCH_CHECK(got.sizes() == want.sizes() && at::allclose(got, want),
              "toyext C++ API: ", what, " differs from the ATen reference");
}

int64_t run_checks() {
  auto x = at::randn({3, 4}, at::kDouble);
  auto y = at::randn({3, 4}, at::kDouble);
  int64_t checked = 0;
  auto check = [&](const at::Tensor& got, const at::Tensor& want, const char* what) {
    expect_close(got, want, what);
    ++checked;
  };

  check(toyext::blend(x, y, 0.25), x * 0.75 + y * 0.25, "blend");
  check(toyext::scale(x, 2.0), x * 2, "scale");
  auto inplace = x.clone();
  toyext::scale_(inplace, 3.0);
  check(inplace, x * 3, "scale_");
  auto out = at::empty({0}, x.options());
  toyext::scale_out(out, x, 2.0);
  check(out, x * 2, "scale.out");
  toyext::scale_outf(x, 4.0, out);
  expect_close(out, x * 4, "scale_outf");
  check(toyext::scale_twice(x, 2.0), x * 4, "scale_twice");
  check(toyext::clamp_range(x, -0.5, 0.5), x.clamp(-0.5, 0.5), "clamp_range");
  auto clamped = at::empty({0}, x.options());
  toyext::clamp_range_out(clamped, x, -0.5, 0.5);
  check(clamped, x.clamp(-0.5, 0.5), "clamp_range.out");
  auto view = toyext::swap_last(x);
  TORCH_CHECK(view.is_alias_of(x), "toyext C++ API: swap_last is not a view");
  check(view, x.transpose(-1, -2), "swap_last");
  check(toyext::swap_last_copy(x), x.transpose(-1, -2), "swap_last_copy");
  auto [values, indices] = toyext::max_dim(x, 1);
  auto [want_values, want_indices] = at::max(x, 1);
  expect_close(values, want_values, "max_dim values");
  check(indices, want_indices, "max_dim indices");
  auto scattered = at::zeros({3, 4}, x.options()).scatter(1, indices.unsqueeze(1), values.unsqueeze(1));
  check(toyext::max_dim_backward(values, indices, 1, x.sizes()), scattered, "max_dim_backward");
  expect_close(toyext::max_dim_backward_symint(values, indices, 1, x.sym_sizes()), scattered,
               "max_dim_backward_symint");
  check(toyext::weighted_sum({x, y}, {0.5, 2.0}, y), x * 0.5 + y * 2.0 + y, "weighted_sum");
  expect_close(toyext::weighted_sum({x}, {3.0}), x * 3.0, "weighted_sum without bias");
  check(toyext::sum_dims(x, {0, 1}), x.sum(), "sum_dims");
  check(toyext::repeat_rows(x, 2), x.repeat({2, 1}), "repeat_rows");
  expect_close(toyext::repeat_rows_symint(x, c10::SymInt(3)), x.repeat({3, 1}), "repeat_rows_symint");
  auto rows = at::tensor({0.0, 0.0, 1.0, 0.0, 0.0, 2.0}, x.options()).view({3, 2});
  check(toyext::nonzero_rows(rows), rows.index_select(0, at::tensor({1, 2})), "nonzero_rows");
  check(toyext::round_to(x, 1), x.round(1), "round_to");
  return checked;
}

}  // namespace

TORCH_LIBRARY(toyext_cpp_test, m) {
  m.def("run() -> int", run_checks);
}
