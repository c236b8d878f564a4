"""``g++ -std=c++20 -fsyntax-only`` accepts the functionalization files against torch's headers.

RegisterFunctionalization_0.cpp (a quarter of the kernels) and
ViewMetaClasses.cpp are compiled with the output directory before torch's
include directory, so they see schemac's ViewMetaClasses.h and
FunctionalInverses.h, and with per-operator headers (as PyTorch builds
them).  Both compilers run at once: the machine has two cores.
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from schemac.backends.driver import emit_targets
from schemac.backends.output import GeneratedFile
from schemac.ir.module import Module

pytestmark = [pytest.mark.torch, pytest.mark.slow]

CompileCpp = Callable[..., "subprocess.CompletedProcess[str]"]
SOURCES = ("ATen/RegisterFunctionalization_0.cpp", "ATen/ViewMetaClasses.cpp")


def _write(out: Path, files: tuple[GeneratedFile, ...]) -> None:
    for f in files:
        path = out / f.path
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f.text)


def test_functionalization_files_compile(
    tmp_path: Path, schemac_module: Module, torch_include: Path, compile_cpp: CompileCpp
) -> None:
    _write(tmp_path, emit_targets(schemac_module, ("functionalization",)))
    include = [tmp_path, torch_include, torch_include / "torch" / "csrc" / "api" / "include"]

    def one(source: str) -> tuple[str, subprocess.CompletedProcess[str]]:
        return source, compile_cpp(tmp_path / source, include, "-DAT_PER_OPERATOR_HEADERS")

    with ThreadPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(one, SOURCES))
    failures = {source: done.stderr[:3000] for source, done in results if done.returncode != 0}
    assert not failures, failures
