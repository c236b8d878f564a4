"""The ATen backends of one run share their views; sharing changes no byte.

``-t headers,cpu,...`` runs one ``emit`` per target; the ATen backends keep
one :class:`~schemac.backends.aten.run_state.AtenRunState` (views and plan
index) in the run's ``RunMemo``.  These checks pin that the state really is
shared within a run, is never reused for another module, and that files
emitted with a shared memo equal files emitted with a fresh one per target.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from schemac.backends.aten.run_state import aten_run_state
from schemac.backends.registry import EmitOptions, RunMemo, backends_for
from schemac.backends.reuse import rendered_files
from schemac.frontend.loader import load_module
from schemac.ir.module import Module
from schemac.passes.manager import run_pipeline

LIBRARY = """\
- func: toy::scale.out(Tensor self, Scalar factor, *, Tensor(a!) out) -> Tensor(a!)
  structured: True
  dispatch:
    CPU, CUDA: scale_out

- func: toy::scale(Tensor self, Scalar factor) -> Tensor
  structured_delegate: scale.out

- func: toy::blend(Tensor self, Tensor other) -> Tensor
  variants: function, method
  dispatch:
    CPU, Meta: blend_kernel
"""

TARGETS = ("headers", "cpu", "cuda", "meta", "composite")


def _module(directory: Path) -> Module:
    path = directory / "native_functions.yaml"
    path.write_text(LIBRARY)
    return run_pipeline(load_module(path)).module


@pytest.fixture(scope="module")
def module(tmp_path_factory: pytest.TempPathFactory) -> Module:
    return _module(tmp_path_factory.mktemp("toy"))


def _emit(module: Module, options: EmitOptions) -> dict[str, str]:
    return {
        f.path: f.text
        for entry in backends_for(options.target)
        for f in rendered_files(entry.load().emit(module, options))
    }


def test_one_state_per_run_and_module(module: Module, tmp_path: Path) -> None:
    memo = RunMemo()
    first = aten_run_state(module, EmitOptions("headers", memo))
    assert aten_run_state(module, EmitOptions("cpu", memo)) is first
    other = _module(tmp_path)
    assert aten_run_state(other, EmitOptions("cpu", memo)).module is other


def test_shared_memo_changes_no_byte(module: Module) -> None:
    memo = RunMemo()
    shared = [_emit(module, EmitOptions(t, memo)) for t in TARGETS]
    fresh = [_emit(module, EmitOptions(t)) for t in TARGETS]
    assert shared == fresh
    assert any("TORCH_FN(wrapper_CPU_" in text for text in shared[1].values())
