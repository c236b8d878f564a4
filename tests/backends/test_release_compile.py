"""The C++ schemac writes for a release compiles against *that release's* headers.

For each reference release besides the primary one (whose files the other
compile tests check at greater length: test_aten_compile.py,
test_autograd_compile.py, test_python_compile.py), schemac compiles the
release's YAML with its profile (``-t headers,schema,cpu,autograd,python``)
and ``g++ -std=c++20 -fsyntax-only`` checks, against the release's own
``torch/include``:

* every ``RegisterCPU_<n>.cpp`` and ``RegisterSchema.cpp``, with schemac's
  ``ATen/ops`` headers first on the include path (as test_aten_compile.py);
* ``Functions.cpp`` and ``VariableType_0.cpp``, with schemac's autograd
  headers mapped to ``torch/csrc/autograd/generated`` (as test_autograd_compile.py);
* ``python_variable_methods.cpp``, with schemac's headers and Python bindings
  (as test_python_compile.py);
* the rest of torchgen's files (issue 15): ``RegisterFunctionalization_0.cpp``,
  ``ViewMetaClasses.cpp``, ``UfuncCPU_add.cpp``, ``UfuncCPUKernel_add.cpp``,
  the AOTInductor shims that need no GPU headers (``c_shim_cpu.cpp``,
  ``c_shim_aten.cpp``), and PyTorch's own ``Functions.cpp`` and
  ``TensorMethods.cpp`` around schemac's headers.

The module is compiled with the release's own host templates
(``torchgen/packaged``), as ``--torch`` on that release would, so the
spliced files (TensorBody.h, the Python method tables) carry the release's
hand-written text.  The output is made once per run, under a file lock, for
every xdist worker.

This is where a release difference that the declaration-level conformance
tests cannot see fails: a TensorBody member the release's ``Tensor.h`` no
longer defines, an export macro a struct is declared with twice, a
``rebase_history`` whose result the release's kernels keep.  The issue-15
files take about 55 CPU seconds per release and run in CI (2.14.1); the
registrations, autograd and Python files take about 230 and are ``slow``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sysconfig
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from schemac.backends.driver import compile_to_directory
from schemac.frontend.host_templates import load_host_templates
from schemac.ir.module import Module
from schemac.profiles import ReleaseProfile
from torch_releases import FAMILY_SOURCES, ReferenceRelease, built_once

pytestmark = [pytest.mark.torch, pytest.mark.each_release(secondary=True)]

TARGETS = ("headers", "schema", "cpu", "autograd", "python", "functionalization", "ufunc", "aoti")
#: The machine (and CI's) has two cores.
JOBS = 2
#: The hand-written inner loop UfuncCPUKernel_add.cpp includes (test_ufunc.py).
UFUNC_ADD_H = Path(__file__).with_name("data") / "ufunc_add.h"


def _run_directory(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The directory of this pytest run that every xdist worker shares."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


@pytest.fixture(scope="session")
def release_output(
    schemac_module: Module,
    schemac_profile: ReleaseProfile,
    torch_release: ReferenceRelease,
    tmp_path_factory: pytest.TempPathFactory,
) -> Path:
    # With the release's own template text, as `--torch` on that release.
    module = schemac_module.evolve(host_templates=load_host_templates(torch_release.packaged))

    def build(out: Path) -> None:
        compile_to_directory(module, TARGETS, out, profile=schemac_profile)
        # The generated sources include their headers where PyTorch's build puts
        # them: torch/csrc/autograd/generated/ (autograd and Python headers).
        generated = out / "include" / "torch" / "csrc" / "autograd" / "generated"
        generated.mkdir(parents=True)
        for header in [*(out / "autograd").glob("*.h"), *(out / "python").glob("*.h")]:
            shutil.copy(header, generated / header.name)
        (out / "ATen" / "native" / "ufunc").mkdir(parents=True)
        shutil.copy(UFUNC_ADD_H, out / "ATen" / "native" / "ufunc" / "add.h")

    directory = _run_directory(tmp_path_factory) / f"schemac-compile-{torch_release.version}"
    return built_once(directory, build)


def _compile_all(
    cxx: str, sources: Sequence[Path], include_dirs: Sequence[Path], *flags: str
) -> dict[str, str]:
    """File name -> the compiler's errors, for every file that failed."""

    def one(source: Path) -> tuple[str, int, str]:
        command = [cxx, "-std=c++20", "-fsyntax-only", *flags]
        command += [f"-I{d}" for d in include_dirs]
        done = subprocess.run([*command, str(source)], capture_output=True, text=True, check=False)
        return source.name, done.returncode, done.stderr

    with ThreadPoolExecutor(max_workers=JOBS) as pool:
        results = list(pool.map(one, sources))
    return {name: err[-4000:] for name, code, err in results if code != 0}


def _failures_text(failures: dict[str, str]) -> str:
    return "\n\n".join(f"{name}:\n{err}" for name, err in failures.items())


def test_rest_of_torchgen_compiles(release_output: Path, torch_include: Path, cxx: str) -> None:
    sources = [release_output / name for name in FAMILY_SOURCES]
    assert all(s.is_file() for s in sources), [s for s in sources if not s.is_file()]
    api = torch_include / "torch" / "csrc" / "api" / "include"
    # Kernel files are compiled once per CPU capability, which names the namespace.
    flags = ("-DAT_PER_OPERATOR_HEADERS", "-DCPU_CAPABILITY=DEFAULT")
    failures = _compile_all(cxx, sources, [release_output, torch_include, api], *flags)
    assert not failures, _failures_text(failures)


@pytest.mark.slow
def test_registrations_compile(release_output: Path, torch_include: Path, cxx: str) -> None:
    aten = release_output / "ATen"
    sources = [*sorted(aten.glob("RegisterCPU_*.cpp")), aten / "RegisterSchema.cpp"]
    assert len(sources) >= 3 and all(s.is_file() for s in sources)
    api = torch_include / "torch" / "csrc" / "api" / "include"
    failures = _compile_all(cxx, sources, [release_output, torch_include, api])
    assert not failures, _failures_text(failures)


@pytest.mark.slow
def test_autograd_sources_compile(release_output: Path, torch_include: Path, cxx: str) -> None:
    autograd = release_output / "autograd"
    sources = [autograd / "Functions.cpp", autograd / "VariableType_0.cpp"]
    api = torch_include / "torch" / "csrc" / "api" / "include"
    include_dirs = [release_output / "include", torch_include, api]
    failures = _compile_all(cxx, sources, include_dirs)
    assert not failures, _failures_text(failures)


@pytest.mark.slow
def test_python_variable_methods_compile(
    release_output: Path, torch_include: Path, cxx: str
) -> None:
    source = release_output / "python" / "python_variable_methods.cpp"
    api = torch_include / "torch" / "csrc" / "api" / "include"
    python = Path(sysconfig.get_paths()["include"])
    include_dirs = [release_output / "include", release_output, torch_include, api, python]
    failures = _compile_all(cxx, [source], include_dirs, "-DAT_PER_OPERATOR_HEADERS")
    assert not failures, _failures_text(failures)
