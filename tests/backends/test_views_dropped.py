"""A process's views and keys are freed when its emission ends, with the collector off.

Note [Views dropped with the run] in :mod:`schemac.backends.driver`: the
console script runs with the cyclic collector off, so the run's memo (the
ATen catalog and view table) and the fingerprints' remembered encodings are
freed only if nothing keeps them in a reference cycle.  A cycle (an entry
holding the view table that holds the entries; the fingerprints' encoders
closing over their own table) kept ~10 MiB of ``-t headers`` alive through
the commit, the peak of the compile.
"""

from __future__ import annotations

import gc
import weakref
from collections.abc import Iterator
from pathlib import Path

import attrs
import pytest

from schemac.backends import driver
from schemac.backends.aten import run_state
from schemac.backends.reuse import Fingerprints
from schemac.frontend.loader import load_module
from schemac.ir.module import Module
from schemac.passes.manager import run_pipeline

LIBRARY = """\
- func: toy::scale.out(Tensor self, Scalar factor, *, Tensor(a!) out) -> Tensor(a!)
  structured: True
  dispatch:
    CPU: scale_out

- func: toy::scale(Tensor self, Scalar factor) -> Tensor
  structured_delegate: scale.out

- func: toy::blend(Tensor self, Tensor other) -> Tensor
  variants: function, method
  dispatch:
    CPU: blend_kernel
"""


@pytest.fixture
def collector_off() -> Iterator[None]:
    was_enabled = gc.isenabled()
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


@pytest.fixture
def module(tmp_path: Path) -> Module:
    path = tmp_path / "native_functions.yaml"
    path.write_text(LIBRARY)
    return run_pipeline(load_module(path)).module


def test_the_headers_views_are_freed_when_the_emission_ends(
    module: Module, collector_off: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    states: list[weakref.ref[object]] = []
    made = run_state.AtenRunState.of

    def of(module: Module) -> run_state.AtenRunState:
        state = made(module)
        states.append(weakref.ref(state.views))
        return state

    monkeypatch.setattr(run_state.AtenRunState, "of", of)
    files = driver.emit_targets(module, ["headers"])
    assert any(f.path == "ATen/RedispatchFunctions.h" for f in files)
    assert states, "the headers made no run state"
    # Reference counting alone freed them: no collection ran.
    assert all(view_table() is None for view_table in states)


@attrs.frozen
class _Value:
    name: str

    reuse_fields = ("name",)  # remembered (and pinned) by the fingerprints


def test_released_fingerprints_let_go_of_what_they_pinned(collector_off: None) -> None:
    fingerprints = Fingerprints()
    value = _Value("x")
    fingerprints.of((value,))
    pinned = weakref.ref(value)
    del value
    fingerprints.release()
    del fingerprints
    assert pinned() is None


def test_the_plan_index_is_built_only_for_a_backend_that_reads_it(
    module: Module, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A process of a split -t headers that emits only the per-operator headers
    # and Operators.cpp never reads the plan index: it is not built there.
    from schemac.backends.aten.headers.backend import AGGREGATE_BACKEND, BACKEND
    from schemac.backends.aten.registrations.operators import BACKEND as OPERATORS
    from schemac.backends.aten.registrations.plan import PlanIndex
    from schemac.backends.registry import EmitOptions, RunMemo
    from schemac.backends.reuse import rendered_files

    built: list[Module] = []
    make = PlanIndex.of

    def of(module: Module) -> PlanIndex:
        built.append(module)
        return make(module)

    monkeypatch.setattr(PlanIndex, "of", of)
    options = EmitOptions(target="headers", memo=RunMemo())
    for backend in (BACKEND, OPERATORS):
        assert list(rendered_files(backend.emit(module, options)))
    assert built == []
    assert list(rendered_files(AGGREGATE_BACKEND.emit(module, options)))
    assert built == [module]
