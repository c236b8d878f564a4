"""The generated registration C++ is real C++: g++ accepts it against torch's headers.

schemac's output directory comes first on the include path and the installed
torch's include/ after it, so the per-operator headers schemac generates (when
the ``headers`` target is registered) shadow the ones torch ships, and every
other header (c10, ATen core, torch/library.h) comes from torch.  Files are
checked with ``-fsyntax-only``, at most two compilers at a time (CI has two
cores).  Measured (g++ 12, CPU seconds per file): RegisterCPU_<n> 14-16,
RegisterMeta 34, RegisterCompositeExplicitAutograd 44, ...ImplicitAutograd 29,
...NonFunctional 22, Operators_<n> 10-11, RegisterSchema 4, BackendSelect 7,
CompositeViewCopyKernels 8: about 270 CPU-seconds, 2.3 minutes on two idle
cores; the selective build adds about 40 seconds.
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from schemac.backends.driver import compile_to_directory
from schemac.backends.registry import BACKENDS
from schemac.cli_selection import with_selection
from schemac.frontend.loader import load_module
from schemac.frontend.torch_paths import torch_yaml_paths
from schemac.ir.module import Module
from schemac.passes.base import PassContext
from schemac.passes.manager import PassManager

pytestmark = [pytest.mark.torch, pytest.mark.slow]

#: ``compile_cpp`` of conftest.py: (source, include_dirs) -> CompletedProcess.
CompileCpp = Callable[..., "subprocess.CompletedProcess[str]"]
_IMPL = re.compile(r'm\.impl\(\s*"([^"]+)",')

#: Parallel compilers: the machine (and CI's) has two cores.
JOBS = 2


def _registered_targets(wanted: Iterable[str]) -> tuple[str, ...]:
    available = {t for entry in BACKENDS for t in entry.targets}
    return tuple(t for t in wanted if t in available)


def _include_dirs(out: Path, torch_include: Path) -> list[Path]:
    return [out, torch_include, torch_include / "torch" / "csrc" / "api" / "include"]


def _compile_all(
    compile_cpp: CompileCpp, sources: Sequence[Path], include_dirs: Sequence[Path]
) -> dict[str, str]:
    """File name -> compiler errors, for every file that failed."""

    def one(source: Path) -> tuple[str, int, str]:
        done = compile_cpp(source, include_dirs)
        return source.name, done.returncode, done.stderr

    with ThreadPoolExecutor(max_workers=JOBS) as pool:
        results = list(pool.map(one, sources))
    return {name: err[-4000:] for name, code, err in results if code != 0}


def _sources(aten: Path, patterns: Iterable[str]) -> list[Path]:
    found = sorted({p for pattern in patterns for p in aten.glob(pattern)})
    return [p for p in found if "Everything" not in p.name]


@pytest.fixture(scope="module")
def full_output(schemac_module: Module, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("aten-compile")
    targets = _registered_targets(("headers", "schema", "cpu", "meta", "composite", "operators"))
    compile_to_directory(schemac_module, targets, out)
    return out


def test_registrations_compile(
    full_output: Path, torch_include: Path, compile_cpp: CompileCpp
) -> None:
    aten = full_output / "ATen"
    sources = _sources(
        aten, ("RegisterCPU_*.cpp", "RegisterMeta_*.cpp", "RegisterComposite*_*.cpp",
               "RegisterSchema.cpp",
            "RegisterBackendSelect.cpp", "CompositeViewCopyKernels.cpp", "Operators_*.cpp")
    )  # fmt: skip
    # 4 CPU shards, Meta, 4 composite keys, RegisterSchema: the files must exist.
    assert len(sources) >= 10, [p.name for p in sources]
    failures = _compile_all(compile_cpp, sources, _include_dirs(full_output, torch_include))
    assert not failures, "\n\n".join(f"{name}:\n{err}" for name, err in failures.items())


#: A few dozen operators: structured (add, mul, addmm), factories with
#: TensorOptions (empty, zeros, arange), views and reductions.
SELECTED = """\
aten::add.Tensor
aten::add.out
aten::add_.Tensor
aten::mul.Tensor
aten::mul.out
aten::sub.Tensor
aten::addmm
aten::addmm.out
aten::mm
aten::relu
aten::sigmoid
aten::tanh
aten::empty.memory_format
aten::empty_strided
aten::zeros
aten::arange.start_out
aten::copy_
aten::view
aten::reshape
aten::transpose.int
aten::sum.dim_IntList
aten::mean.dim
aten::max.dim
aten::cat
aten::index_select
aten::clamp
aten::softmax.int
aten::_softmax
aten::layer_norm
aten::native_layer_norm
aten::conv2d
aten::convolution
aten::embedding
aten::linear
aten::masked_fill.Scalar
"""


def _selection_yaml(names: list[str]) -> str:
    """PyTorch's selected_operators.yaml format, each operator without its other overloads."""
    entry = (
        "  {}:\n    is_root_operator: true\n    is_used_for_training: false\n"
        "    include_all_overloads: false\n"
    )
    return "include_all_operators: false\noperators:\n" + "".join(entry.format(n) for n in names)


SELECTED_NAMES = [line for line in SELECTED.splitlines() if line]


@pytest.fixture(scope="module")
def selected_module(tmp_path_factory: pytest.TempPathFactory) -> Module:
    path = tmp_path_factory.mktemp("selection") / "selected_operators.yaml"
    path.write_text(_selection_yaml(SELECTED_NAMES))
    paths = torch_yaml_paths()
    module = load_module(paths.native_functions, paths.tags, paths.derivatives, paths.deprecated)
    manager = with_selection(PassManager.default(), path)
    return manager.run(PassContext(), module).module


def test_selective_build_registers_only_selected(
    selected_module: Module, full_output: Path, tmp_path_factory: pytest.TempPathFactory,
    torch_include: Path, compile_cpp: CompileCpp,
) -> None:  # fmt: skip
    # As in PyTorch, selection prunes registrations, not the operator headers
    # (torch's own headers use operators a selection may leave out): headers
    # come from the full build, registrations from the selected module.
    out = tmp_path_factory.mktemp("aten-selected")
    compile_to_directory(selected_module, _registered_targets(("cpu", "meta", "composite")), out)
    aten = out / "ATen"
    registered: set[str] = set()
    for path in _sources(aten, ("Register*_*.cpp",)):
        registered |= {m.group(1) for m in _IMPL.finditer(path.read_text())}
    # Exactly the selected overloads are registered: none of their other
    # overloads, none of the operators kept only as dependencies.
    assert registered == {name.split("::")[1] for name in SELECTED_NAMES}

    sources = _sources(aten, ("RegisterCPU_*.cpp", "RegisterMeta_*.cpp"))
    include_dirs = [out, *_include_dirs(full_output, torch_include)]
    failures = _compile_all(compile_cpp, sources, include_dirs)
    assert not failures, "\n\n".join(f"{name}:\n{err}" for name, err in failures.items())
