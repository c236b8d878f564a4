"""The generated binding C++ is real C++: g++ -fsyntax-only against schemac's and torch's headers.

The files are spliced into the installed torch's own templates (the hand-written
``Tensor.size``, ``_parse_to``... included), as PyTorch's build compiles them;
``Functions.cpp`` and ``TensorMethods.cpp`` are checked against schemac's
``Functions.h`` and ``TensorBody.h`` the same way.

schemac compiles the installed torch's YAML with ``-t headers,autograd,python``;
the variable methods file, one torch-functions shard and one autograd-node
shard are then checked by g++.  The output directory comes first on the
include path, so ``ATen/ops/*.h`` are schemac's own headers; the headers
PyTorch includes from ``torch/csrc/autograd/generated/``
(``python_return_types.h``, ``python_functions.h``, ``Functions.h``) are
mapped to schemac's outputs as well, so the check fails if schemac's pieces
disagree with each other (a node member a getter reads, a named-tuple getter a
binding calls).  Everything else comes from the installed torch and Python.
"""

from __future__ import annotations

import shutil
import subprocess
import sysconfig
from pathlib import Path

import pytest

from schemac.backends.driver import emit_targets
from schemac.frontend.loader import load_module
from schemac.passes.base import PassContext
from schemac.passes.registry import default_pipeline_names, pass_class

pytestmark = [pytest.mark.torch, pytest.mark.slow]


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    import torchgen

    root = Path(torchgen.__file__).parent / "packaged"
    module = load_module(
        str(root / "ATen/native/native_functions.yaml"),
        str(root / "ATen/native/tags.yaml"),
        str(root / "autograd/derivatives.yaml"),
        str(root / "autograd/deprecated.yaml"),
        # Spliced into PyTorch's templates: the complete files PyTorch's build compiles.
        host_templates=root,
    )
    for name in default_pipeline_names():
        module = pass_class(name)().run(PassContext(), module)
    out = tmp_path_factory.mktemp("python_cxx")
    for file in emit_targets(module, ["headers", "autograd", "python"]):
        path = out / file.path
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(file.text)
    shim = out / "include/torch/csrc/autograd/generated"
    shim.mkdir(parents=True)
    for header in ("python/python_return_types.h", "python/python_functions.h"):
        shutil.copy(out / header, shim)
    # Functions.h, and variable_factories.h spliced into PyTorch's own header.
    for header in ("autograd/Functions.h", "autograd/variable_factories.h"):
        if (out / header).exists():
            shutil.copy(out / header, shim)
    return out


def _syntax_check(source: Path, out: Path) -> subprocess.CompletedProcess[str]:
    import torch

    torch_include = Path(torch.__file__).parent / "include"
    command = [
        "g++",
        "-std=c++20",
        "-fsyntax-only",
        "-DAT_PER_OPERATOR_HEADERS",
        f"-I{out / 'include'}",
        f"-I{out}",
        f"-I{torch_include}",
        f"-I{torch_include / 'torch/csrc/api/include'}",
        f"-I{sysconfig.get_paths()['include']}",
        str(source),
    ]
    return subprocess.run(command, capture_output=True, text=True, timeout=600)


@pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")
@pytest.mark.parametrize(
    "name",
    [
        "python/python_variable_methods.cpp",
        "python/python_torch_functions_0.cpp",
        "python/python_functions_0.cpp",
        # PyTorch's own text around schemac's TensorBody.h / Functions.h.
        "ATen/Functions.cpp",
        "ATen/core/TensorMethods.cpp",
    ],
)
def test_generated_bindings_compile(name: str, generated: Path) -> None:
    result = _syntax_check(generated / name, generated)
    assert result.returncode == 0, result.stderr[-4000:]
