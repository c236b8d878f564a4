"""The extension target without building it: layout, declarations, diagnostics, regeneration.

The built library (opcheck, gradcheck, torch.compile) is tested in
test_extension_build.py.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from schemac.cli import main

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "toyext"
# The tags an extension may use are torch's own.
torchgen = pytest.importorskip("torchgen")
TAGS = Path(torchgen.__file__).parent / "packaged" / "ATen" / "native" / "tags.yaml"
OLD = 1_000_000_000


def _compile(yaml: Path, out: Path, *extra: str, derivatives: Path | None = None) -> int:
    args = ["compile", str(yaml), "--tags", str(TAGS), "-t", "extension", "-o", str(out)]
    if derivatives is not None:
        args += ["--derivatives", str(derivatives)]
    return main([*args, *extra])


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("toyext") / "out"
    assert _compile(EXAMPLE / "ops.yaml", out, derivatives=EXAMPLE / "derivatives.yaml") == 0
    return out


def test_everything_is_under_the_namespace_and_sources_are_cpp(generated: Path) -> None:
    files = sorted(str(p.relative_to(generated)) for p in generated.rglob("*") if p.is_file())
    files = [f for f in files if not f.startswith(".schemac-")]  # schemac's own bookkeeping
    assert all(f.startswith("toyext/") for f in files)
    suffixes = {Path(f).suffix for f in files}
    assert suffixes == {".cpp", ".h", ".py", ".pyi"}
    # One registration file per operator family, and the one TORCH_LIBRARY.
    assert "toyext/register/scale.cpp" in files and "toyext/library.cpp" in files
    assert "TORCH_LIBRARY(toyext, m) {}" in (generated / "toyext/library.cpp").read_text()
    libraries = [f for f in files if "TORCH_LIBRARY(" in (generated / f).read_text()]
    assert libraries == ["toyext/library.cpp"]


def test_kernels_are_declared_with_atens_native_signatures(generated: Path) -> None:
    blend = (generated / "toyext/kernels/blend.h").read_text()
    assert "namespace toyext::native {" in blend
    decl = "at::Tensor blend_cpu(const at::Tensor & self, const at::Tensor & other,"
    assert f"{decl} const at::Scalar & weight=0.5);" in blend
    assert "at::Tensor blend_meta(" in blend and "at::Tensor blend_cuda(" in blend
    symint = (generated / "toyext/kernels/max_dim_backward.h").read_text()
    assert "int64_t dim, c10::SymIntArrayRef sizes);" in symint
    lists = (generated / "toyext/kernels/weighted_sum.h").read_text()
    assert (
        "at::Tensor weighted_sum(at::TensorList tensors, at::ArrayRef<double> weights,"
        " const ::std::optional<at::Tensor> & bias={});" in lists
    )
    structured = (generated / "toyext/kernels/scale.h").read_text()
    assert "struct structured_scale : public at::impl::MetaBase {" in structured
    assert "void meta(const at::Tensor & self, const at::Scalar & factor);" in structured
    assert "struct structured_scale_out_cpu : public toyext::meta::structured_scale {" in structured
    # autogen'd out= returns nothing, and the extension defines its kernel.
    autogen = (generated / "toyext/kernels/clamp_range.h").read_text()
    assert "void clamp_range_out(const at::Tensor & self, double low, double high," in autogen
    register = (generated / "toyext/register/clamp_range.cpp").read_text()
    schema = "clamp_range.out(Tensor self, float low=0.0, float high=1.0, *, Tensor(a!) out) -> ()"
    assert f'm.def("{schema}"' in register
    assert "at::native::resize_output_symint(out, result.sym_sizes());" in register


def test_registrations_tags_and_autograd(generated: Path) -> None:
    scale = (generated / "toyext/register/scale.cpp").read_text()
    assert 'm.def("scale_(Tensor(a!) self, Scalar factor) -> ()", {at::Tag::inplace,' in scale
    assert "TORCH_LIBRARY_IMPL(toyext, CPU, m) {" in scale
    assert "TORCH_LIBRARY_IMPL(toyext, Meta, m) {" in scale  # from the structured meta()
    assert "struct ScaleBackward0 : public torch::autograd::TraceableFunction {" in scale
    assert 'm.impl("scale_", TORCH_FN(scale__inplace_or_view));' in scale
    assert "rebase_history(flatten_tensor_args(self), grad_fn);" in scale
    blend = (generated / "toyext/register/blend.cpp").read_text()
    assert "#ifdef SCHEMAC_WITH_CUDA" in blend and "c10::cuda" not in blend.split("#ifdef")[0]
    max_dim = (generated / "toyext/register/max_dim.cpp").read_text()
    # Only the differentiable output gets history; the formula's op is included.
    assert "set_history(flatten_tensor_args(values), grad_fn);" in max_dim
    assert "#include <toyext/ops/max_dim_backward.h>" in max_dim
    round_to = (generated / "toyext/register/round_to.cpp").read_text()
    assert "torch::autograd::autogradNotImplementedFallback()" in round_to
    # A composite-implicit operator needs no autograd kernel.
    composite = (generated / "toyext/register/scale_twice.cpp").read_text()
    assert "TORCH_LIBRARY_IMPL(toyext, CompositeImplicitAutograd, m)" in composite
    assert "TORCH_LIBRARY_IMPL(toyext, Autograd, m)" not in composite


def test_typed_apis(generated: Path) -> None:
    ops = (generated / "toyext/ops/scale.h").read_text()
    assert "inline void scale_out(at::Tensor & out, const at::Tensor & self," in ops
    assert "inline void scale_outf(const at::Tensor & self, const at::Scalar & factor," in ops
    assert ".findSchemaOrThrow(name, overload_name).typed<schema>();" in ops
    stub = (generated / "toyext/ops.pyi").read_text()
    assert (
        "def blend(self: torch.Tensor, other: torch.Tensor, *,"
        " weight: float | int | bool = 0.5) -> torch.Tensor: ..." in stub
    )
    assert "def scale_(self: torch.Tensor, factor: float | int | bool) -> None: ..." in stub
    assert "def max_dim(self: torch.Tensor, dim: int) -> tuple[torch.Tensor, torch.Tensor]" in stub
    module = (generated / "toyext/ops.py").read_text()
    compile(module, "ops.py", "exec")
    assert "torch.ops.toyext.scale.out(self, factor, out=out, **_given)" in module


BAD_CASES = [
    (
        "- func: aten::neg2(Tensor self) -> Tensor\n",
        "1:9: error: operator 'neg2' is in the aten namespace",
        "mylib::neg2",
    ),
    (
        "- func: lib::a(Tensor self) -> Tensor\n- func: other::b(Tensor self) -> Tensor\n",
        "2:9: error: operator 'other::b' is in a second namespace",
        "every operator of the library must be in 'lib'",
    ),
    (
        "- func: lib::a(Tensor self) -> Tensor\n  tags: [pointwize]\n",
        "2:10: error: unknown tag 'pointwize'",
        "did you mean 'pointwise'?",
    ),
    (
        "- func: lib::a(Tensor self) -> Tensor\n  dispatch:\n    CPUU: a_cpu\n",
        "3:5: error: unknown dispatch key 'CPUU'",
        "did you mean 'CPU'?",
    ),
    (
        "- func: lib::a(Tensor self) -> Tensor\n  dispatch:\n    CPU: a-cpu\n",
        "3:10: error: kernel name 'a-cpu' is not a valid C++ identifier",
        "rename it",
    ),
    (
        "- func: lib::a_(Tensor(a!) self) -> Tensor(a!)\n  tags: pt2_compliant_tag\n",
        "1:37: error: 'a_' carries pt2_compliant_tag but returns a mutated argument",
        "return () from a mutating operator",
    ),
]


@pytest.mark.parametrize(("yaml", "message", "hint"), BAD_CASES)
def test_bad_libraries_are_positioned_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], yaml: str, message: str, hint: str
) -> None:
    source = tmp_path / "lib.yaml"
    source.write_text(yaml)
    out = tmp_path / "out"
    assert _compile(source, out) == 1
    err = capsys.readouterr().err
    assert f"{source}:{message}" in err
    assert "^" in err and hint in err
    assert not out.exists()


def test_warnings_do_not_fail_the_compile(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "lib.yaml"
    source.write_text(
        "- func: lib::view_of(Tensor(a) self) -> Tensor(a)\n"
        "  dispatch:\n    CompositeExplicitAutograd: view_of\n"
        "- func: lib::view_of_copy(Tensor self) -> Tensor\n"
        "  dispatch:\n    CompositeExplicitAutograd: view_of_copy\n  tags: view_copy\n"
        "- func: lib::count(Tensor self) -> Tensor\n  dispatch:\n    CPU: count_cpu\n"
    )
    assert _compile(source, tmp_path / "out") == 0
    err = capsys.readouterr().err
    assert f"{source}:1:41: warning: 'view_of' returns an input (a view)" in err
    assert f"{source}:8:9: warning: 'count' has no Meta kernel and no composite kernel" in err
    assert '@torch.library.register_fake("lib::count")' in err
    # Through the diagnostics channel: once each, sorted, and counted with the run's.
    assert err.count("warning: 'count' has no Meta kernel") == 1
    assert err.rstrip().endswith("2 warnings"), err


def test_werror_turns_the_extension_targets_warnings_into_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "lib.yaml"
    source.write_text(
        "- func: lib::count(Tensor self) -> Tensor\n  dispatch:\n    CPU: count_cpu\n"
    )
    out = tmp_path / "out"
    assert _compile(source, out, "--Werror") == 1
    err = capsys.readouterr().err
    assert f"{source}:1:9: error: 'count' has no Meta kernel" in err
    assert "[-Werror]" in err and "^" in err
    assert "warning:" not in err
    assert not out.exists()
    # Without it the same file compiles, with the warning.
    assert _compile(source, out) == 0
    assert f"{source}:1:9: warning: 'count' has no Meta kernel" in capsys.readouterr().err


def test_editing_one_operator_rewrites_only_its_files(tmp_path: Path) -> None:
    yaml = tmp_path / "ops.yaml"
    yaml.write_text((EXAMPLE / "ops.yaml").read_text())
    out = tmp_path / "out"
    depfile = tmp_path / "out.d"
    derivatives = EXAMPLE / "derivatives.yaml"
    assert _compile(yaml, out, "--depfile", str(depfile), derivatives=derivatives) == 0
    for path in out.rglob("*"):
        os.utime(path, (OLD, OLD))
    yaml.write_text(yaml.read_text().replace("int decimals=0", "int decimals=1"))
    assert _compile(yaml, out, "--depfile", str(depfile), derivatives=derivatives) == 0
    changed = sorted(
        str(p.relative_to(out)) for p in out.rglob("*") if p.is_file() and p.stat().st_mtime != OLD
    )
    changed = [f for f in changed if not f.startswith(".schemac-")]
    assert changed == [
        "toyext/kernels/round_to.h",
        "toyext/ops.py",
        "toyext/ops.pyi",
        "toyext/ops/round_to.h",
        "toyext/register/round_to.cpp",
    ]
    assert f"{out}/toyext/register/round_to.cpp" in depfile.read_text()


@pytest.mark.torch
def test_cmake_recipe_generates_at_configure_and_regenerates_with_a_depfile(
    tmp_path: Path,
) -> None:
    """examples/toyext/CMakeLists.txt: configure only (the C++ build is test_extension_build's)."""
    import shutil
    import subprocess
    import sys

    if shutil.which("cmake") is None or shutil.which("ninja") is None:
        pytest.skip("needs cmake and ninja")
    torch_prefix = subprocess.run(
        [sys.executable, "-c", "import torch.utils; print(torch.utils.cmake_prefix_path)"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    source = tmp_path / "src"
    shutil.copytree(EXAMPLE, source, ignore=shutil.ignore_patterns("build", "*.egg-info"))
    build = tmp_path / "build"
    configure = [
        "cmake", "-S", str(source), "-B", str(build), "-G", "Ninja",
        f"-DPython3_EXECUTABLE={sys.executable}", f"-DCMAKE_PREFIX_PATH={torch_prefix}",
    ]  # fmt: skip
    done = subprocess.run(configure, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    listed = (build / "schemac-outputs.txt").read_text().split()
    generated = sorted(str(p) for p in (build / "generated").rglob("*.cpp"))
    assert sorted(p for p in listed if p.endswith(".cpp")) == generated
    ninja = (build / "build.ninja").read_text()
    assert "schemac.d" in ninja and "register/round_to.cpp.o" in ninja
