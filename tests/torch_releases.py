"""The torch releases the conformance tests compare against, and their torchgen runs.

A reference release is a directory holding what one torch wheel ships for code
generation: ``torchgen/`` (pure Python, with its packaged YAML and templates),
``torch/include/`` and the ``dist-info``.  The installed torch (2.13.0, the
default reference) is one; the others are unpacked from their wheels, never
installed, so that one test process can compare against several releases.

Where a release comes from, first match wins:

1. the installed torch, when its version is the one asked for;
2. ``$SCHEMAC_TEST_TORCH_RELEASES/torch-<R>/`` (a developer's unpacked copies,
   e.g. ``/work/cache``, which saves the download);
3. the cache ``$SCHEMAC_TEST_CACHE`` (default ``~/.cache/schemac-tests``),
   filled on first use by ``pip download --no-deps torch==<R>`` and unzipping
   only the three parts above.  pip may be capped below a release by its
   configuration; the download is then retried without it
   (``PIP_CONFIG_FILE=/dev/null``), as torch 2.15.0 needs on CI machines.

A torchgen run is a subprocess with ``PYTHONPATH`` set to the release's
directory, so the release's own torchgen (not the installed one) writes the
reference.  Everything here is keyed by the release, cached outside the
repository, and built under a file lock so that pytest-xdist workers share it.
"""

from __future__ import annotations

import contextlib
import fcntl
import importlib.metadata
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

from schemac.frontend.torch_paths import TorchYamlPaths, torch_yaml_paths

#: Every release the conformance tests know, oldest first.
RELEASES = ("2.13.0", "2.14.1", "2.15.0")
#: The releases a plain ``pytest`` run compares against (``-m slow`` adds the rest).
DEFAULT_RELEASES = ("2.13.0", "2.14.1")
#: The reference every other test uses.
PRIMARY_RELEASE = "2.13.0"
#: Issue 15's files that g++ must accept against each release's headers, by
#: their path under the output directory (test_release_compile.py for 2.13-2.15,
#: test_old_release_compile.py for 2.11 and 2.12).
FAMILY_SOURCES = (
    "ATen/RegisterFunctionalization_0.cpp",
    "ATen/ViewMetaClasses.cpp",
    "ATen/UfuncCPU_add.cpp",
    "ATen/UfuncCPUKernel_add.cpp",
    "aoti/c_shim_cpu.cpp",
    "aoti/c_shim_aten.cpp",
    "ATen/Functions.cpp",
    "ATen/core/TensorMethods.cpp",
)

_WHEEL_PARTS = ("torchgen/", "torch/include/")
_DIST_INFO = re.compile(r"torch-[^/]+\.dist-info/")


@dataclass(frozen=True)
class ReferenceRelease:
    """One torch release's code-generation inputs, unpacked in ``root``."""

    version: str
    root: Path

    @property
    def packaged(self) -> Path:
        return self.root / "torchgen" / "packaged"

    @property
    def include(self) -> Path:
        return self.root / "torch" / "include"

    @property
    def native_functions(self) -> Path:
        return self.packaged / "ATen" / "native" / "native_functions.yaml"

    @property
    def tags(self) -> Path:
        return self.packaged / "ATen" / "native" / "tags.yaml"

    @property
    def autograd_dir(self) -> Path:
        return self.packaged / "autograd"

    @property
    def short(self) -> str:
        """``2.14`` for ``2.14.1``: what ``--torch-version`` is given."""
        return ".".join(self.version.split(".")[:2])

    def python_env(self) -> dict[str, str]:
        """The environment under which ``python -m torchgen...`` is this release's."""
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(
            [str(self.root), *filter(None, [os.environ.get("PYTHONPATH")])]
        )
        return env


def cache_root() -> Path:
    configured = os.environ.get("SCHEMAC_TEST_CACHE")
    if configured:
        return Path(configured)
    return Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "schemac-tests"


@contextlib.contextmanager
def locked(lock_path: Path) -> Iterator[None]:
    lock_path.parent.mkdir(parents=True, exist_ok=True)
    with open(lock_path, "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def _installed_root() -> Path | None:
    spec = importlib.util.find_spec("torchgen")
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations))).parent


def _public(version: str) -> str:
    """``2.13.0`` for ``2.13.0+cpu``: wheels carry a local build label."""
    return version.split("+")[0]


def _complete(root: Path) -> bool:
    return (root / "torchgen" / "packaged").is_dir() and (root / "torch" / "include").is_dir()


def reference_release(version: str) -> ReferenceRelease:
    """The unpacked release ``version``, fetched into the cache on first use."""
    installed = _installed_root()
    with contextlib.suppress(importlib.metadata.PackageNotFoundError):
        if installed is not None and _public(importlib.metadata.version("torch")) == version:
            return ReferenceRelease(version, installed)
    local = os.environ.get("SCHEMAC_TEST_TORCH_RELEASES")
    if local and _complete(Path(local) / f"torch-{version}"):
        return ReferenceRelease(version, Path(local) / f"torch-{version}")
    root = cache_root() / f"torch-{version}"
    with locked(cache_root() / f"torch-{version}.lock"):
        if not _complete(root):
            _unpack(_download(version), root)
    return ReferenceRelease(version, root)


def _wheels(directory: Path, version: str) -> list[Path]:
    return sorted(
        p
        for p in directory.glob(f"torch-{version}*.whl")
        if _public(p.name.split("-")[1]) == version
    )


def _download(version: str) -> Path:
    wheels = cache_root() / "wheels"
    wheels.mkdir(parents=True, exist_ok=True)
    found = _wheels(wheels, version)
    if found:
        return found[0]
    command = [sys.executable, "-m", "pip", "download", "--no-deps", "--quiet",
               "-d", str(wheels), f"torch=={version}"]  # fmt: skip
    first = subprocess.run(command, capture_output=True, text=True, check=False)
    if first.returncode != 0:
        # A pip configuration may cap torch below this release: ask the index directly.
        env = dict(os.environ, PIP_CONFIG_FILE=os.devnull)
        second = subprocess.run(command, capture_output=True, text=True, check=False, env=env)
        if second.returncode != 0:
            raise RuntimeError(
                f"cannot download torch=={version}:\n"
                f"{first.stderr[-2000:]}\n{second.stderr[-2000:]}"
            )
    found = _wheels(wheels, version)
    if not found:
        raise RuntimeError(f"pip downloaded no torch-{version} wheel into {wheels}")
    return found[0]


def _unpack(wheel: Path, root: Path) -> None:
    staging = root.with_name(root.name + ".partial")
    shutil.rmtree(staging, ignore_errors=True)
    with zipfile.ZipFile(wheel) as archive:
        members = [
            name
            for name in archive.namelist()
            if (name.startswith(_WHEEL_PARTS) or _DIST_INFO.match(name))
            and not name.endswith(".pyc")
        ]
        archive.extractall(staging, members)
    shutil.rmtree(root, ignore_errors=True)
    staging.rename(root)


def release_yaml_paths(release: ReferenceRelease) -> TorchYamlPaths:
    """The release's YAML inputs (the installed torch's are found as the CLI finds them)."""
    paths = torch_yaml_paths()
    if paths.native_functions == release.native_functions:
        return paths
    return TorchYamlPaths(
        native_functions=release.native_functions,
        tags=release.tags,
        derivatives=release.autograd_dir / "derivatives.yaml",
        deprecated=release.autograd_dir / "deprecated.yaml",
    )


def _is_torchgen(name: str) -> bool:
    return name == "torchgen" or name.startswith("torchgen.")


_IMPORTED: dict[tuple[str, str], ModuleType] = {}


def import_torchgen(release: ReferenceRelease, name: str) -> ModuleType:
    """The release's ``torchgen`` module ``name``, imported beside the installed one.

    For tests that compare schemac's IR with torchgen's model in process.  The
    installed torchgen's modules are set aside while the release's are
    imported (with its directory first on ``sys.path``) and put back after,
    so a later ``import torchgen`` still finds the installed one, and the
    release's modules keep referring to each other.  Import what a test needs
    up front: a release module importing more of torchgen later (inside a
    function) would get the installed one.
    """
    if release.root == _installed_root():
        return importlib.import_module(name)
    key = (release.version, name)
    if key in _IMPORTED:
        return _IMPORTED[key]
    saved = {n: m for n, m in sys.modules.items() if _is_torchgen(n)}
    released = {n: m for (v, n), m in _IMPORTED.items() if v == release.version}
    for n in saved:
        del sys.modules[n]
    sys.modules.update(released)
    sys.path.insert(0, str(release.root))
    try:
        module = importlib.import_module(name)
        for n, m in sys.modules.items():
            if _is_torchgen(n):
                _IMPORTED[(release.version, n)] = m
    finally:
        sys.path.remove(str(release.root))
        for n in [n for n in sys.modules if _is_torchgen(n)]:
            del sys.modules[n]
        sys.modules.update(saved)
    return module


# -- torchgen's outputs for one release ----------------------------------------------


def _run(release: ReferenceRelease, args: list[str], cwd: Path) -> None:
    done = subprocess.run(
        [sys.executable, *args],
        capture_output=True,
        text=True,
        check=False,
        cwd=cwd,
        env=release.python_env(),
    )
    if done.returncode != 0:
        raise RuntimeError(f"torchgen {release.version} failed: {args}\n{done.stderr[-4000:]}")


def run_torchgen_aten(release: ReferenceRelease, destination: Path) -> None:
    """``torchgen.gen -s packaged/ATen -d DEST --per-operator-headers --mps --xpu --mtia``."""
    args = ["-m", "torchgen.gen", "-s", str(release.packaged / "ATen"), "-d", str(destination),
            "--per-operator-headers", "--mps", "--xpu", "--mtia"]  # fmt: skip
    # torchgen also writes AOTInductor shims relative to its working directory:
    # kept as DEST/aoti/c_shim_<device>.cpp (where schemac writes them under OUT).
    scratch = destination.with_name(destination.name + ".cwd")
    scratch.mkdir(parents=True, exist_ok=True)
    try:
        _run(release, args, scratch)
        shims = scratch / "torch/csrc/inductor/aoti_torch/generated"
        if shims.is_dir():
            shutil.move(str(shims), str(destination / "aoti"))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def run_gen_autograd(release: ReferenceRelease, destination: Path) -> None:
    destination.mkdir(parents=True, exist_ok=True)
    args = ["-m", "torchgen.packaged.autograd.gen_autograd", str(release.native_functions),
            str(release.tags), str(destination), str(release.autograd_dir)]  # fmt: skip
    _run(release, args, destination.parent)


_PYTHON_BINDINGS = (
    "import sys\n"
    "from torchgen.packaged.autograd.gen_autograd import gen_autograd_python\n"
    "gen_autograd_python(*sys.argv[1:])\n"
)


def run_gen_autograd_python(release: ReferenceRelease, destination: Path) -> None:
    destination.mkdir(parents=True, exist_ok=True)
    args = ["-c", _PYTHON_BINDINGS, str(release.native_functions), str(release.tags),
            str(destination), str(release.autograd_dir)]  # fmt: skip
    _run(release, args, destination.parent)


def built_once(directory: Path, build: Callable[[Path], None]) -> Path:
    """``build(staging)`` under a lock, renamed to ``directory`` when it succeeded."""
    with locked(directory.with_name(directory.name + ".lock")):
        if not directory.is_dir():
            staging = directory.with_name(directory.name + ".partial")
            shutil.rmtree(staging, ignore_errors=True)
            build(staging)
            staging.rename(directory)
    return directory
