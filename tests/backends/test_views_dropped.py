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

import weakref
from collections.abc import Iterator
from pathlib import Path

import attrs
import pytest

from schemac.backends import driver
from schemac.backends.aten import run_state
from schemac.backends.aten.registrations.plan import PlanIndex
from schemac.backends.registry import ATEN_PLAN, ATEN_STATE, BackendEntry, EmitOptions, RunMemo
from schemac.backends.reuse import Fingerprints, rendered_files
from schemac.backends.split import Unit, emission_units
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
def module(tmp_path: Path) -> Module:
    path = tmp_path / "native_functions.yaml"
    path.write_text(LIBRARY)
    return run_pipeline(load_module(path)).module


def test_the_headers_views_are_freed_when_the_emission_ends(
    module: Module, collector_off: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    states: list[weakref.ref[object]] = []
    made = run_state.AtenRunState.of

    def of(module: Module, memo: RunMemo | None = None) -> run_state.AtenRunState:
        state = made(module, memo)
        states.append(weakref.ref(state.views))
        return state

    monkeypatch.setattr(run_state.AtenRunState, "of", of)
    files = driver.emit_targets(module, ["headers"])
    assert any(f.path == "ATen/RedispatchFunctions.h" for f in files)
    assert states, "the headers made no run state"
    # Reference counting alone freed them: no collection ran.
    assert all(view_table() is None for view_table in states)


def test_the_plan_index_goes_after_its_last_reader(
    module: Module, collector_off: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Note [Memo values dropped after their last reader]: the aggregate headers
    are the plan index's only reader in -t headers; the per-operator headers
    after them run without it."""
    plans: list[weakref.ref[object]] = []
    made = PlanIndex.of

    def of(module: Module) -> PlanIndex:
        plan = made(module)
        plans.append(weakref.ref(plan))
        return plan

    alive_at: dict[str, bool] = {}
    emit = driver._Emission._emit

    def _emit(self: driver._Emission, module: Module, unit: Unit) -> None:
        alive_at[unit.backend.name] = any(plan() is not None for plan in plans)
        emit(self, module, unit)

    monkeypatch.setattr(PlanIndex, "of", of)
    monkeypatch.setattr(driver._Emission, "_emit", _emit)
    driver.emit_targets(module, ["headers"])
    assert len(plans) == 1
    order = [u.backend.name for u in emission_units(["headers"])]
    assert order.index("aten-aggregate-headers") < order.index("aten-headers")
    assert alive_at["aten-headers"] is False  # built by the aggregate headers, gone


def test_a_unit_reading_any_memo_value_keeps_them_all() -> None:
    unknown = attrs.evolve(emission_units(["schema"])[0], backend=BackendEntry("x", "m:x", ()))
    assert driver._memo_reads([unknown]) is None
    later = driver._memo_reads(emission_units(["headers"])[2:])
    assert later is not None and ATEN_STATE in later and ATEN_PLAN not in later
    memo = RunMemo()
    memo.get(ATEN_PLAN, lambda: "plan")
    memo.get(ATEN_STATE, lambda: "state")
    memo.keep_only(later)
    assert memo.get(ATEN_PLAN, lambda: "again") == "again"
    assert memo.get(ATEN_STATE, lambda: "again") == "state"


def test_a_value_is_done_with_only_when_no_later_unit_reads_it() -> None:
    memo = RunMemo()
    memo.get(ATEN_PLAN, lambda: "plan")
    memo.done_with(ATEN_PLAN)  # later reads not known: kept
    assert memo.read_later(ATEN_PLAN)
    assert memo.get(ATEN_PLAN, lambda: "again") == "plan"
    memo.expect_later({ATEN_PLAN})
    memo.done_with(ATEN_PLAN)
    assert memo.get(ATEN_PLAN, lambda: "again") == "plan"
    memo.expect_later({ATEN_STATE})
    assert not memo.read_later(ATEN_PLAN)
    memo.done_with(ATEN_PLAN)
    assert memo.get(ATEN_PLAN, lambda: "again") == "again"


def test_the_plan_index_goes_before_the_umbrellas_when_no_later_unit_reads_it(
    module: Module, collector_off: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``RedispatchFunctions.h`` (the peak of the process emitting the aggregate
    headers) is rendered without the plan index, unless a later unit reads it."""
    from schemac.backends.aten.headers import backend as headers

    plans: list[weakref.ref[object]] = []
    made = PlanIndex.of

    def of(module: Module) -> PlanIndex:
        plan = made(module)
        plans.append(weakref.ref(plan))
        return plan

    alive: list[bool] = []
    umbrellas = headers._umbrellas

    def _umbrellas(*args: object) -> Iterator[object]:
        alive.append(any(plan() is not None for plan in plans))
        yield from umbrellas(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(PlanIndex, "of", of)
    monkeypatch.setattr(headers, "_umbrellas", _umbrellas)
    driver.emit_targets(module, ["headers"])
    assert alive == [False]
    memo = RunMemo()
    memo.expect_later({ATEN_PLAN})  # a later registration unit would plan again
    options = EmitOptions(target="headers", memo=memo)
    assert list(rendered_files(headers.AGGREGATE_BACKEND.emit(module, options)))
    assert alive == [False, True]


def test_native_views_are_kept_only_for_a_later_reader(module: Module) -> None:
    from schemac.backends.aten.headers.backend import BACKEND
    from schemac.backends.aten.run_state import aten_run_state

    texts = {}
    for later in (None, {ATEN_STATE}):
        memo = RunMemo()
        memo.expect_later(later)
        options = EmitOptions(target="headers", memo=memo)
        files = list(rendered_files(BACKEND.emit(module, options)))
        texts[later is None] = {f.path: f.text for f in files}
        kept = aten_run_state(module, options).views._native
        assert bool(kept) is (later is None)
    assert texts[True] == texts[False]


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
