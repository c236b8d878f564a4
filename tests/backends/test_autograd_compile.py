"""The autograd C++ schemac writes is real C++: g++ -fsyntax-only against torch's headers.

The generated sources include their headers as PyTorch's build lays them out
(``torch/csrc/autograd/generated/Functions.h``), and the installed torch ships
its own copies of those headers.  schemac writes ``OUT/autograd/``; the test
maps that directory to ``torch/csrc/autograd/generated`` in an include
directory put *first* on the path, so every generated header comes from
schemac (checked with ``g++ -H``), then torch's ``include/`` and
``include/torch/csrc/api/include``.

Each file takes 40-60 s to check on the shared 2-core machine, hence ``slow``.
ADInplaceOrViewType_<n>.cpp also includes ``ATen/FunctionalInverses.h``, an
ATen codegen output the installed torch does not ship: that test takes it
from torchgen's ATen outputs (the shared ``torchgen_aten_dir`` fixture).
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from schemac.backends.autograd.backend import emit_autograd
from schemac.ir.module import Module

pytestmark = [pytest.mark.torch, pytest.mark.slow]


@pytest.fixture(scope="module")
def include_root(schemac_module: Module, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An include directory whose torch/csrc/autograd/generated is schemac's output."""
    root = tmp_path_factory.mktemp("autograd_cxx")
    generated = root / "torch/csrc/autograd/generated"
    generated.mkdir(parents=True)
    for file in emit_autograd(schemac_module):
        (generated / Path(file.path).name).write_text(file.text)
    return root


def _include_dirs(include_root: Path, torch_include: Path) -> list[Path]:
    return [include_root, torch_include, torch_include / "torch/csrc/api/include"]


@pytest.mark.parametrize(
    "name", ["Functions.cpp", "VariableType_0.cpp", "TraceType_0.cpp", "ViewFuncs.cpp"]
)
def test_generated_source_compiles(
    name: str, include_root: Path, torch_include: Path, compile_cpp
) -> None:
    source = include_root / "torch/csrc/autograd/generated" / name
    result = compile_cpp(source, _include_dirs(include_root, torch_include))
    assert result.returncode == 0, result.stderr[-4000:]


def test_generated_headers_shadow_torchs(
    include_root: Path, torch_include: Path, cxx: str, tmp_path: Path
) -> None:
    probe = tmp_path / "probe.cpp"
    probe.write_text(
        '#include "torch/csrc/autograd/generated/Functions.h"\n'
        '#include "torch/csrc/autograd/generated/variable_factories.h"\n'
        "int main() { return torch::ones({2}, c10::requires_grad()).requires_grad() ? 0 : 1; }\n"
    )
    command = [cxx, "-std=c++20", "-fsyntax-only", "-H"]
    command += [f"-I{d}" for d in _include_dirs(include_root, torch_include)]
    result = subprocess.run([*command, str(probe)], capture_output=True, text=True, check=False)
    errors = [line for line in result.stderr.splitlines() if "error" in line]
    assert result.returncode == 0, errors
    included = [line.lstrip(". ") for line in result.stderr.splitlines() if line.startswith(".")]
    ours = [p for p in included if p.endswith(("generated/Functions.h", "variable_factories.h"))]
    assert ours and all(p.startswith(str(include_root)) for p in ours), ours


def test_inplace_or_view_shard_compiles(
    include_root: Path, torch_include: Path, torchgen_aten_dir: Path, compile_cpp, tmp_path: Path
) -> None:
    shim = tmp_path / "shim"
    (shim / "ATen").mkdir(parents=True)
    shutil.copy(torchgen_aten_dir / "FunctionalInverses.h", shim / "ATen/FunctionalInverses.h")
    source = include_root / "torch/csrc/autograd/generated/ADInplaceOrViewType_0.cpp"
    include_dirs = _include_dirs(include_root, torch_include)
    result = compile_cpp(source, [include_dirs[0], shim, *include_dirs[1:]])
    assert result.returncode == 0, result.stderr[-4000:]
