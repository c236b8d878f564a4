"""torch 2.11 and 2.12: ``compile -t all`` output compiles against those releases' own headers.

Their profiles switch on what changed in 2.13 (``structured_output_names``,
``std::shared_ptr`` nodes, ``check_has_torch_function``, the factory methods'
device init, 5 VariableType / TraceType shards); test_older_releases.py
checks each switch on a tiny library, and this runs g++ on the real thing:
each release's packaged YAML, compiled with its profile and its own host
templates, and ``g++ -std=c++20 -fsyntax-only`` on the files
test_release_compile.py checks for 2.13-2.15.  About 8 CPU minutes per
release, and two more wheels to fetch: ``slow_only`` (only under ``-m slow``).
"""

from __future__ import annotations

import shutil
import subprocess
import sysconfig
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from schemac.backends.driver import compile_to_directory
from schemac.backends.registry import parse_targets
from schemac.frontend.loader import load_module
from schemac.passes.base import PassContext
from schemac.passes.manager import PassManager
from schemac.profiles import load_profile
from torch_releases import FAMILY_SOURCES, reference_release, release_yaml_paths

#: ``make test`` runs ``slow`` tests: this one only runs under ``-m slow``.
pytestmark = [pytest.mark.torch, pytest.mark.slow, pytest.mark.slow_only]

UFUNC_ADD_H = Path(__file__).with_name("data") / "ufunc_add.h"
#: (files, include directories under OUT, extra flags).
GROUPS = (
    (
        (
            "ATen/RegisterCPU_0.cpp",
            "ATen/RegisterSchema.cpp",
            *FAMILY_SOURCES,
        ),
        (".",),
        ("-DAT_PER_OPERATOR_HEADERS", "-DCPU_CAPABILITY=DEFAULT"),
    ),
    (("autograd/Functions.cpp", "autograd/VariableType_0.cpp"), ("include",), ()),
    (("python/python_variable_methods.cpp",), ("include", "."), ("-DAT_PER_OPERATOR_HEADERS",)),
)


@pytest.mark.parametrize("version", ["2.11.0", "2.12.1"])
def test_all_compiles_against_its_own_headers(version: str, tmp_path: Path, compile_cpp) -> None:  # type: ignore[no-untyped-def]
    release = reference_release(version)
    profile = load_profile(release.short)
    paths = release_yaml_paths(release)
    module = load_module(
        paths.native_functions,
        paths.tags,
        paths.derivatives,
        paths.deprecated,
        profile=profile,
        host_templates=release.packaged,
    )
    module = PassManager.default().run(PassContext(profile=profile), module).module
    out = tmp_path / "out"
    compile_to_directory(module, parse_targets("all"), out, profile=profile)
    generated = out / "include" / "torch" / "csrc" / "autograd" / "generated"
    generated.mkdir(parents=True)
    for header in [*(out / "autograd").glob("*.h"), *(out / "python").glob("*.h")]:
        shutil.copy(header, generated / header.name)
    (out / "ATen" / "native" / "ufunc").mkdir(parents=True)
    shutil.copy(UFUNC_ADD_H, out / "ATen" / "native" / "ufunc" / "add.h")

    include = release.include
    common = [include, include / "torch" / "csrc" / "api" / "include"]
    jobs = [
        (
            out / name,
            [*(out / d for d in dirs), *common, Path(sysconfig.get_paths()["include"])],
            flags,
        )
        for names, dirs, flags in GROUPS
        for name in names
    ]

    def one(
        job: tuple[Path, list[Path], tuple[str, ...]],
    ) -> tuple[str, subprocess.CompletedProcess[str]]:
        source, dirs, flags = job
        return source.name, compile_cpp(source, dirs, *flags)

    with ThreadPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(one, jobs))
    failures = {name: done.stderr[-3000:] for name, done in results if done.returncode != 0}
    assert not failures, failures
