"""Fixtures shared by every backend test: the real inputs and torchgen's outputs.

``torchgen_aten_dir`` runs ``python -m torchgen.gen`` (the reference) once: it
takes about 30 s, so its output is shared by the whole session *and* by every
pytest-xdist worker (a lock file makes the first worker generate it and the
others wait).  Tests read it, never /tmp/ref.  ``schemac_module`` is the
installed torch's YAML after schemac's whole pass pipeline.

Each of these follows ``torch_release`` (tests/conftest.py): the installed
torch unless the test module is marked ``each_release``, in which case it
runs once per reference release with that release's YAML, torchgen and
headers.

For compiling generated C++: ``torch_include`` is the release's
include directory, ``cxx`` the C++ compiler (``$CXX`` or ``g++``) and
``compile_cpp`` runs it with ``-std=c++20 -fsyntax-only``.
"""

from __future__ import annotations

import fcntl
import importlib.metadata
import os
import shutil
import subprocess
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import pytest

from schemac.frontend.loader import load_module
from schemac.frontend.torch_paths import TorchYamlPaths
from schemac.ir.module import Module
from schemac.passes.base import PassContext
from schemac.passes.manager import PassManager
from schemac.profiles import ReleaseProfile, load_profile
from torch_releases import ReferenceRelease, release_yaml_paths, run_torchgen_aten


@pytest.fixture(scope="session")
def torch_paths(torch_release: ReferenceRelease) -> TorchYamlPaths:
    return release_yaml_paths(torch_release)


@pytest.fixture(scope="session")
def schemac_profile(torch_release: ReferenceRelease) -> ReleaseProfile:
    """The profile schemac compiles the release's YAML with (``--torch-version X.Y``)."""
    return load_profile(torch_release.short)


@pytest.fixture(scope="session")
def schemac_module(torch_paths: TorchYamlPaths, schemac_profile: ReleaseProfile) -> Module:
    """The release's YAML files, loaded and through the whole pipeline."""
    module = load_module(
        torch_paths.native_functions,
        torch_paths.tags,
        torch_paths.derivatives,
        torch_paths.deprecated,
        profile=schemac_profile,
    )
    return PassManager.default().run(PassContext(profile=schemac_profile), module).module


def shared_reference_dir(
    tmp_path_factory: pytest.TempPathFactory, name: str, build: Callable[[Path], None]
) -> Path:
    """A reference output built once for every xdist worker of the run.

    ``build(destination)`` runs under a file lock in the directory all workers
    share (the parent of each worker's base temp); the directory is keyed by
    the installed torch's version, since it outlives the session.
    ``$SCHEMAC_TEST_REFERENCE_CACHE``, when set, keeps these directories
    across runs instead (for a developer re-running one test).
    """
    kept = os.environ.get("SCHEMAC_TEST_REFERENCE_CACHE")
    shared = Path(kept) if kept else tmp_path_factory.getbasetemp().parent
    shared.mkdir(parents=True, exist_ok=True)
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


@pytest.fixture(scope="session")
def torchgen_aten_dir(
    tmp_path_factory: pytest.TempPathFactory, torch_release: ReferenceRelease
) -> Iterator[Path]:
    """The release's torchgen ATen outputs (``-d DIR --per-operator-headers --mps --xpu --mtia``).

    Laid out as torchgen writes them: ``DIR/RegisterSchema.cpp``,
    ``DIR/core/ATenOpList.cpp``, ``DIR/ops/add.h`` ...  (schemac puts the
    same files under ``OUT/ATen/``).
    """

    def build(destination: Path) -> None:
        staging = destination.with_name(destination.name + ".partial")
        shutil.rmtree(staging, ignore_errors=True)
        run_torchgen_aten(torch_release, staging)
        staging.rename(destination)

    name = f"torchgen-aten-aoti-{torch_release.version}"  # with aoti/ (the shims)
    yield shared_reference_dir(tmp_path_factory, name, build)


@pytest.fixture(scope="session")
def torch_include(torch_release: ReferenceRelease) -> Path:
    """The release's include directory (ATen, c10, torch/library.h)."""
    return torch_release.include


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
