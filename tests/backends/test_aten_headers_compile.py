"""The generated headers are real C++: they compile in place of torch's own.

The output directory goes first on the include path and the installed
torch's ``include/`` after it, so every ``<ATen/ops/...>``, ``<ATen/core/TensorBody.h>``
and umbrella header comes from schemac, and the rest of ATen and c10 from
torch.  Each test batches many headers into one translation unit
(``-fsyntax-only``) to keep the compiler runs few.
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from schemac.backends.aten.headers.backend import emit_headers
from schemac.ir.module import Module

pytestmark = pytest.mark.torch

CompileCpp = Callable[..., "subprocess.CompletedProcess[str]"]

#: Every n-th operator family is compiled with all of its per-operator headers.
SAMPLE_STRIDE = 15

#: A few uses of the generated API whose types are checked by the compiler.
USAGE = """
#include <type_traits>
#include <ATen/ops/add.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/sum.h>
#include <ATen/ops/add_cpu_dispatch.h>

inline void schemac_uses_generated_api(const at::Tensor& t, at::Tensor& out) {
  at::Tensor a = at::add(t, t);
  at::Tensor b = t.add(a, 2);
  at::Tensor& c = at::add_out(out, t, b);
  at::Tensor& d = at::add_outf(t, b, 1, out);
  at::Tensor e = at::empty({2, 3}, at::kFloat);
  at::Tensor f = at::symint::empty<c10::SymInt>(c10::SymIntArrayRef{}, at::TensorOptions{});
  at::Tensor g = at::cpu::add(t, e);
  at::Tensor h = t.sum(/*dim=*/{0}, /*keepdim=*/true);
  using AddSchema = at::Tensor(const at::Tensor&, const at::Tensor&, const at::Scalar&);
  static_assert(std::is_same_v<at::_ops::add_Tensor::schema, AddSchema>);
  (void)c; (void)d; (void)f; (void)g; (void)h;
}
"""


@pytest.fixture(scope="module")
def out_dir(schemac_module: Module, tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("schemac-headers")
    for generated in emit_headers(schemac_module):
        path = root / generated.path
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(generated.text)
    return root


def _sample_includes(out_dir: Path) -> list[str]:
    ops = out_dir / "ATen" / "ops"
    names = sorted(p.name for p in ops.iterdir())
    roots = sorted(n[: -len("_ops.h")] for n in names if n.endswith("_ops.h"))
    includes = []
    for root in roots[::SAMPLE_STRIDE]:
        mine = {f"{root}.h", f"{root}_ops.h", f"{root}_native.h", f"{root}_meta.h"}
        mine |= {
            n
            for n in names
            if n.startswith(f"{root}_")
            and n.endswith("_dispatch.h")
            and n[len(root) + 1 : -len("_dispatch.h")].isalpha()
        }
        includes += [f"#include <ATen/ops/{n}>" for n in sorted(mine) if (ops / n).is_file()]
    return includes


def _compile(compile_cpp: CompileCpp, source: Path, out_dir: Path, torch_include: Path) -> str:
    # -H lists every header opened: proof that TensorBody.h came from out_dir.
    result = compile_cpp(source, [out_dir, torch_include], "-H")
    assert result.returncode == 0, result.stderr[-4000:]
    return str(result.stderr)


def test_sampled_per_operator_headers_compile(
    out_dir: Path,
    torch_include: Path,
    compile_cpp,
    tmp_path: Path,
) -> None:
    includes = _sample_includes(out_dir)
    assert len(includes) >= 100
    source = tmp_path / "sample.cpp"
    source.write_text("\n".join(includes) + "\n" + USAGE)
    opened = _compile(compile_cpp, source, out_dir, torch_include)
    assert str(out_dir / "ATen" / "core" / "TensorBody.h") in opened
    print(f"compiled {len(includes)} generated per-operator headers")


@pytest.mark.slow
def test_every_umbrella_header_compiles(
    out_dir: Path,
    torch_include: Path,
    compile_cpp,
    tmp_path: Path,
) -> None:
    per_key = sorted(p.name for p in (out_dir / "ATen").glob("*Functions.h"))
    umbrellas = [
        "Functions.h", "NativeFunctions.h", "NativeMetaFunctions.h", "RedispatchFunctions.h",
        "Operators.h", "MethodOperators.h", *per_key,
    ]  # fmt: skip
    source = tmp_path / "umbrellas.cpp"
    source.write_text("".join(f"#include <ATen/{name}>\n" for name in dict.fromkeys(umbrellas)))
    _compile(compile_cpp, source, out_dir, torch_include)


#: Code written against the public C++ API, with schemac's headers underneath:
#: ATen.h (TensorIndexing, Tensor autograd members) and the whole C++ frontend.
DROP_IN = """
#include <ATen/ATen.h>
#include <ATen/TensorIndexing.h>
#include <torch/torch.h>

inline int64_t schemac_drop_in(at::Tensor t) {
  using namespace at::indexing;
  at::Tensor x = t.index({Slice(0, 2), 1});
  t.index_put_({0}, 1.0);
  x.backward();
  torch::nn::Linear linear(3, 4);
  at::Tensor y = linear(torch::randn({2, 3}));
  return static_cast<int64_t>(x.item<float>()) + t.cpu().sizes()[0] + y.size(0);
}
"""


@pytest.mark.slow
def test_libtorch_frontend_compiles_on_generated_headers(
    out_dir: Path, torch_include: Path, compile_cpp: CompileCpp, tmp_path: Path
) -> None:
    source = tmp_path / "drop_in.cpp"
    source.write_text(DROP_IN)
    api_include = torch_include / "torch" / "csrc" / "api" / "include"
    result = compile_cpp(source, [out_dir, torch_include, api_include], "-H")
    assert result.returncode == 0, result.stderr[-4000:]
    assert str(out_dir / "ATen" / "core" / "TensorBody.h") in result.stderr
