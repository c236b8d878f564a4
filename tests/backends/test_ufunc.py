"""The ufunc target against torchgen, and its CPU files through g++.

torchgen writes ``UfuncCPU_<op>.cpp``, ``UfuncCPUKernel_<op>.cpp`` and
``UfuncCUDA_<op>.cu`` for each operator with ``ufunc_inner_loop`` (``add`` in
torch 2.13).  Compared, whitespace-normalised: the declared classes and
functions, the dispatch-stub declarations and registrations, the impl heads,
and per dtype case (in order) how the loops are run: the CPU lambdas and
runner, the CUDA functors (members, constructor, device operator) and which
functor each case uses for a CPU-scalar operand.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest

from schemac.backends.driver import emit_targets
from schemac.diagnostics import InputError
from schemac.ir.module import Module

_SPACE = re.compile(r"\s+")

#: Lines that declare or register something, whatever the file.
_DECLARING = re.compile(
    r"^\s*(struct TORCH_API .*|void (?:meta|impl)\(.*\);|using \w+_fn = .*;|"
    r"(?:DECLARE|DEFINE|REGISTER)_DISPATCH\(.*|TORCH_IMPL_FUNC\(.*\)\(.*\)|"
    r"void \w+_kernel\(.*\)|struct CUDAFunctor\w* \{|"
    r"CUDAFunctor\w*\(opmath_t.*\{\}|__device__ .*operator\(\)\(.*\) const|"
    r"return ufunc::.*;)",
    re.M,
)
_CASE = re.compile(r"AT_DISPATCH_CASE\(at::ScalarType::(\w+),(.*?)\n\s*\}\s*\)", re.S)


def _norm(text: str) -> str:
    return _SPACE.sub(" ", text).strip().rstrip(";{ ").replace("( ", "(").replace(" )", ")")


def declared(text: str) -> list[str]:
    return sorted(_norm(m.group(1)) for m in _DECLARING.finditer(text))


def cpu_cases(text: str) -> list[tuple[str, str, list[str]]]:
    """Per case: dtype, runner, lambdas."""
    out = []
    for dtype, body in _CASE.findall(text):
        runner = "cpu_kernel_vec" if "cpu_kernel_vec(" in body else "cpu_kernel"
        lambdas = [_norm(x) for x in re.findall(r"\[=\]\(.*?\) \{.*?\}", body)]
        out.append((dtype, runner, lambdas))
    return out


def cuda_cases(text: str) -> list[tuple[str, list[str]]]:
    """Per case: dtype, then each functor construction and launch, in order."""
    calls = re.compile(
        r"(is_cpu_scalar\(\d\)|CUDAFunctor\w*<scalar_t>[ (][^;]*;|gpu_kernel\(.*?\);)"
    )
    return [(d, [_norm(c) for c in calls.findall(body)]) for d, body in _CASE.findall(text)]


FILES: dict[str, Callable[[str], object]] = {
    "UfuncCPU_add.cpp": declared,
    "UfuncCPUKernel_add.cpp": lambda t: (declared(t), cpu_cases(t)),
    "UfuncCUDA_add.cu": lambda t: (declared(t), cuda_cases(t)),
}


@pytest.fixture(scope="module")
def schemac_ufunc(schemac_module: Module) -> dict[str, str]:
    return {Path(f.path).name: f.text for f in emit_targets(schemac_module, ("ufunc",))}


@pytest.mark.torch
@pytest.mark.parametrize("name", sorted(FILES))
def test_ufunc_file_matches_torchgen(
    name: str, torchgen_aten_dir: Path, schemac_ufunc: dict[str, str]
) -> None:
    reference = (torchgen_aten_dir / name).read_text()
    extract = FILES[name]
    theirs, ours = extract(reference), extract(schemac_ufunc[name])
    assert ours == theirs
    assert declared(reference)  # the comparison is not empty


@pytest.mark.torch
def test_same_ufunc_files(torchgen_aten_dir: Path, schemac_ufunc: dict[str, str]) -> None:
    reference = {p.name for p in torchgen_aten_dir.glob("Ufunc*")}
    assert set(schemac_ufunc) == reference


#: ``ATen/native/ufunc/add.h`` (the inner loop) is hand-written in PyTorch's
#: source and not shipped in the wheel: a stand-in with its two overloads.
UFUNC_ADD_H = Path(__file__).with_name("data") / "ufunc_add.h"


@pytest.mark.torch
@pytest.mark.slow
@pytest.mark.parametrize("name", ["UfuncCPU_add.cpp", "UfuncCPUKernel_add.cpp"])
def test_cpu_files_compile(
    name: str,
    schemac_ufunc: dict[str, str],
    tmp_path: Path,
    torch_include: Path,
    compile_cpp: Callable[..., object],
) -> None:
    (tmp_path / "ATen/native/ufunc").mkdir(parents=True)
    (tmp_path / "ATen/native/ufunc/add.h").write_text(UFUNC_ADD_H.read_text())
    source = tmp_path / name
    source.write_text(schemac_ufunc[name])
    # Kernel files are compiled once per CPU capability, which names the namespace.
    result = compile_cpp(source, [tmp_path, torch_include], "-DCPU_CAPABILITY=DEFAULT")
    assert result.returncode == 0, result.stderr[-3000:]  # type: ignore[attr-defined]


def test_unknown_dtype_is_an_error_at_the_loop(tmp_path: Path) -> None:
    from schemac.frontend.loader import load_module
    from schemac.passes.manager import run_pipeline

    yaml = tmp_path / "native_functions.yaml"
    yaml.write_text(
        "- func: twice.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)\n"
        "  structured: True\n"
        "  structured_inherits: TensorIteratorBase\n"
        "  ufunc_inner_loop:\n"
        "    Generic: twice (Floating, Quux)\n"
        "- func: twice(Tensor self) -> Tensor\n"
        "  structured_delegate: twice.out\n"
    )
    module = run_pipeline(load_module(yaml)).module
    with pytest.raises(InputError) as caught:
        emit_targets(module, ("ufunc",))
    (diagnostic,) = caught.value.diagnostics
    assert diagnostic.span.line == 5
    assert "'Quux'" in diagnostic.message
