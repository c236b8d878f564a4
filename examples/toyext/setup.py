"""Builds toyext: runs schemac on ops.yaml, then compiles the generated sources
with the hand-written kernels in csrc/ as the extension ``toyext._C``.

Environment:
  SCHEMAC_UNITY_BUILD=1  compile everything as one translation unit (a faster
                         clean build, for CI; an incremental rebuild then
                         recompiles all of it)
  MAX_JOBS=N             parallel compile jobs (torch.utils.cpp_extension)
CUDA kernels (csrc/*.cu) are built when torch has CUDA and nvcc is found.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import torch
from setuptools import setup
from torch.utils.cpp_extension import CUDA_HOME, BuildExtension, CppExtension, CUDAExtension

HERE = Path(__file__).parent.resolve()
NAMESPACE = "toyext"
WITH_CUDA = torch.version.cuda is not None and CUDA_HOME is not None


def generate(out: Path) -> list[str]:
    """Run schemac (write-if-changed: an unchanged operator keeps its files' mtimes)."""
    command = [
        sys.executable, "-m", "schemac", "compile", str(HERE / "ops.yaml"),
        "--torch", "--derivatives", str(HERE / "derivatives.yaml"),
        "-t", "extension", "-o", str(out),
    ]  # fmt: skip
    subprocess.run(command, check=True)
    return sorted(str(p) for p in (out / NAMESPACE).rglob("*.cpp"))


def unity_source(out: Path, sources: list[str]) -> str:
    unity = out.parent / "unity.cpp"
    text = "".join(f'#include "{source}"\n' for source in sources)
    if not unity.exists() or unity.read_text() != text:
        unity.write_text(text)
    return str(unity)


class BuildWithSchemac(BuildExtension):
    def run(self) -> None:
        out = Path(self.build_temp).resolve() / "generated"
        generated = generate(out)
        for extension in self.extensions:
            sources = [*generated, *extension.sources]
            if os.environ.get("SCHEMAC_UNITY_BUILD") == "1":
                cpp = [str(HERE / s) for s in sources if s.endswith(".cpp")]
                sources = [unity_source(out, cpp), *(s for s in sources if s.endswith(".cu"))]
            extension.sources = sources
            extension.include_dirs.append(str(out))
        super().run()
        # The typed Python API goes into the package beside the library.
        package = Path(self.build_lib) / NAMESPACE
        package.mkdir(parents=True, exist_ok=True)
        for name in ("ops.py", "ops.pyi"):
            (package / name).write_bytes((out / NAMESPACE / name).read_bytes())


# Relative to this directory, as setuptools requires.
kernels = ["csrc/pointwise.cpp", "csrc/reductions.cpp", "csrc/shapes.cpp"]
if WITH_CUDA:
    extension = CUDAExtension(
        f"{NAMESPACE}._C",
        [*kernels, "csrc/blend_cuda.cu"],
        define_macros=[("SCHEMAC_WITH_CUDA", None)],
    )
else:
    extension = CppExtension(f"{NAMESPACE}._C", kernels)

setup(ext_modules=[extension], cmdclass={"build_ext": BuildWithSchemac})
