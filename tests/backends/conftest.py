"""Fixtures shared by every backend test: the real inputs and torchgen's outputs.

``torchgen_aten_dir`` runs ``python -m torchgen.gen`` (the reference) once: it
takes about 30 s, so its output is shared by the whole session *and* by every
pytest-xdist worker (a lock file makes the first worker generate it and the
others wait).  Tests read it, never /tmp/ref.  ``schemac_module`` is the
installed torch's YAML after schemac's whole pass pipeline.

For compiling generated C++: ``torch_include`` is the installed torch's
include directory, ``cxx`` the C++ compiler (``$CXX`` or ``g++``) and
``compile_cpp`` runs it with ``-std=c++20 -fsyntax-only``.
"""

from __future__ import annotations

import fcntl
import importlib.metadata
import importlib.util
import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import pytest

from schemac.frontend.loader import load_module
from schemac.frontend.torch_paths import TorchYamlPaths, torch_yaml_paths
from schemac.ir.module import Module
from schemac.passes.manager import run_pipeline


def _package_dir(name: str) -> Path:
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError(f"the {name} package is not installed (pip install -e '.[test]')")
    return Path(next(iter(spec.submodule_search_locations)))


@pytest.fixture(scope="session")
def torch_paths() -> TorchYamlPaths:
    return torch_yaml_paths()


@pytest.fixture(scope="session")
def schemac_module(torch_paths: TorchYamlPaths) -> Module:
    """The installed torch's YAML files, loaded and through the whole pipeline."""
    module = load_module(
        torch_paths.native_functions,
        torch_paths.tags,
        torch_paths.derivatives,
        torch_paths.deprecated,
    )
    return run_pipeline(module).module


def shared_reference_dir(
    tmp_path_factory: pytest.TempPathFactory, name: str, build: Callable[[Path], None]
) -> Path:
    """A reference output built once for every xdist worker of the run.

    ``build(destination)`` runs under a file lock in the directory all workers
    share (the parent of each worker's base temp); the directory is keyed by
    the installed torch's version, since it outlives the session.
    """
    shared = tmp_path_factory.getbasetemp().parent
    destination = shared / f"{name}-{importlib.metadata.version('torch')}"
    with open(shared / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            if not destination.is_dir():
                build(destination)
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
    return destination


@pytest.fixture(scope="session")
def build_shared_reference(
    tmp_path_factory: pytest.TempPathFactory,
) -> Callable[[str, Callable[[Path], None]], Path]:
    """:func:`shared_reference_dir` for test modules' own reference fixtures."""

    def build(name: str, builder: Callable[[Path], None]) -> Path:
        return shared_reference_dir(tmp_path_factory, name, builder)

    return build


def _run_torchgen(destination: Path) -> None:
    packaged = _package_dir("torchgen") / "packaged" / "ATen"
    staging = destination.with_name(destination.name + ".partial")
    shutil.rmtree(staging, ignore_errors=True)
    command = [
        sys.executable, "-m", "torchgen.gen",
        "-s", str(packaged), "-d", str(staging),
        "--per-operator-headers", "--mps", "--xpu", "--mtia",
    ]  # fmt: skip
    # torchgen also writes AOTInductor shims relative to its working directory.
    subprocess.run(command, check=True, capture_output=True, cwd=destination.parent)
    staging.rename(destination)


@pytest.fixture(scope="session")
def torchgen_aten_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """torchgen's ATen outputs (``-d DIR --per-operator-headers --mps --xpu --mtia``).

    Laid out as torchgen writes them: ``DIR/RegisterSchema.cpp``,
    ``DIR/core/ATenOpList.cpp``, ``DIR/ops/add.h`` ...  (schemac puts the
    same files under ``OUT/ATen/``).
    """
    yield shared_reference_dir(tmp_path_factory, "torchgen-aten-mtia", _run_torchgen)


@pytest.fixture(scope="session")
def torch_include() -> Path:
    """The include directory of the installed torch (ATen, c10, torch/library.h)."""
    return _package_dir("torch") / "include"


@pytest.fixture(scope="session")
def cxx() -> str:
    compiler = os.environ.get("CXX", "g++")
    if shutil.which(compiler) is None:
        raise RuntimeError(f"no C++ compiler: {compiler!r} is not on PATH (set $CXX)")
    return compiler


CompileCpp = Callable[..., "subprocess.CompletedProcess[str]"]


@pytest.fixture(scope="session")
def compile_cpp(cxx: str) -> CompileCpp:
    """``compile_cpp(source, include_dirs, *flags)``: ``$CXX -std=c++20 -fsyntax-only``.

    Returns the completed process; assert ``returncode == 0`` and show ``stderr``.
    """

    def run(
        source: Path, include_dirs: Sequence[Path] = (), *extra: str
    ) -> subprocess.CompletedProcess[str]:
        command = [cxx, "-std=c++20", "-fsyntax-only", *extra]
        command += [f"-I{d}" for d in include_dirs]
        command.append(str(source))
        return subprocess.run(command, capture_output=True, text=True, check=False)

    return run
