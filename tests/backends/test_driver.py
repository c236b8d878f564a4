"""The driver: which backends run for which targets, and how their files meet."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import attrs
import pytest

from schemac.backends import driver, registry, split
from schemac.backends.forked import can_fork
from schemac.backends.output import GeneratedFile, OutputError
from schemac.backends.registry import BackendEntry, EmitOptions
from schemac.diagnostics import NO_SPAN, Diagnostic, InputError
from schemac.ir.module import Module, SourceFiles

MODULE = Module(sources=SourceFiles(native_functions="native_functions.yaml"))
CALLS: list[tuple[str, str]] = []


@attrs.frozen
class FakeBackend:
    name: str
    targets: tuple[str, ...]
    paths: tuple[str, ...]
    description: str = "a fake backend"

    def emit(self, module: Module, options: EmitOptions) -> Iterable[GeneratedFile]:
        CALLS.append((self.name, options.target))
        for path in self.paths:
            yield GeneratedFile(path.format(target=options.target), f"{self.name}\n")


ALPHA = FakeBackend("alpha", ("cpu", "cuda"), ("Register_{target}.cpp",))
BETA = FakeBackend("beta", ("cpu",), ("beta.h",))
CLASH = FakeBackend("clash", ("cuda",), ("beta.h", "Register_cuda.cpp"))


@pytest.fixture
def fake_registry(monkeypatch: pytest.MonkeyPatch) -> None:
    CALLS.clear()
    entries = tuple(
        BackendEntry(b.name, f"{__name__}:{b.name.upper()}", b.targets) for b in (ALPHA, BETA)
    )
    monkeypatch.setattr(registry, "BACKENDS", entries)


def test_each_backend_runs_once_per_selected_target_it_answers(fake_registry: None) -> None:
    files = driver.emit_targets(MODULE, ("cpu", "cuda"))
    assert CALLS == [("alpha", "cpu"), ("beta", "cpu"), ("alpha", "cuda")]
    assert [(f.path, f.target) for f in files] == [
        ("Register_cpu.cpp", "cpu"),
        ("Register_cuda.cpp", "cuda"),
        ("beta.h", "cpu"),
    ]


def test_files_produced_twice_are_reported_together(
    fake_registry: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    entries = (*registry.BACKENDS, BackendEntry("clash", f"{__name__}:CLASH", ("cuda",)))
    monkeypatch.setattr(registry, "BACKENDS", entries)
    with pytest.raises(OutputError) as raised:
        driver.emit_targets(MODULE, ("cpu", "cuda"))
    messages = sorted(d.message for d in raised.value.diagnostics)
    assert len(messages) == 2
    assert "'Register_cuda.cpp' from target 'cuda' collides with the same path" in messages[0]
    assert (
        "'beta.h' from target 'cuda' collides with the same path from target 'cpu'" in (messages[1])
    )


@attrs.frozen
class FailingBackend:
    """Yields a file, then fails: the file was already staged in line (``-j 1``)."""

    name: str = "failing"
    targets: tuple[str, ...] = ("cuda",)
    description: str = "a backend that fails after its first file"

    def emit(self, module: Module, options: EmitOptions) -> Iterable[GeneratedFile]:
        yield GeneratedFile("first.h", "staged before the failure\n")
        raise RuntimeError("the backend failed")


FAILING = FailingBackend()


@pytest.mark.parametrize("first_compile", [True, False])
def test_a_compile_failing_after_files_were_staged_in_line_leaves_out_as_it_was(
    fake_registry: None, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, first_compile: bool
) -> None:
    entries = (*registry.BACKENDS, BackendEntry("failing", f"{__name__}:FAILING", ("cuda",)))
    monkeypatch.setattr(registry, "BACKENDS", entries)
    out = tmp_path / "out"
    if not first_compile:
        driver.compile_to_directory(MODULE, ("cpu",), out, jobs=1)
    before = {
        str(p.relative_to(tmp_path)): p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()
    }
    with pytest.raises(RuntimeError, match="the backend failed"):
        driver.compile_to_directory(MODULE, ("cpu", "cuda"), out, jobs=1)
    after = {
        str(p.relative_to(tmp_path)): p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()
    }
    assert after == before  # no staging directory left beside OUT, OUT untouched
    assert sorted(p.name for p in tmp_path.iterdir()) == ([] if first_compile else ["out"])


@attrs.frozen
class ErringBackend:
    """Yields a file, then reports an input error naming its target."""

    name: str
    targets: tuple[str, ...]
    description: str = "a backend that rejects its input"

    def emit(self, module: Module, options: EmitOptions) -> Iterable[GeneratedFile]:
        yield GeneratedFile(f"{self.name}.h", "staged before the error\n")
        raise InputError([Diagnostic(NO_SPAN, f"{self.name} cannot express {options.target}")])


ERR_CPU = ErringBackend("err_cpu", ("cpu",))
ERR_CUDA = ErringBackend("err_cuda", ("cuda",))


@pytest.fixture
def split_always(monkeypatch: pytest.MonkeyPatch) -> None:
    """The queue's units go to the parent and the child in turn, whoever is
    free first: two calls always land in different processes (Note [Split emission])."""
    monkeypatch.setattr(split, "PIN_TO_CHILD", lambda unit: unit.position % 2 == 1)


@pytest.mark.skipif(not can_fork(), reason="needs os.fork")
@pytest.mark.parametrize("pinned", [True, False], ids=["in-turn", "whoever-is-free"])
@pytest.mark.parametrize("order", [("cpu", "cuda"), ("cuda", "cpu")])
def test_split_emission_raises_the_error_a_run_in_order_meets_first(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, order: tuple[str, str], pinned: bool
) -> None:
    """Whichever process takes which call (pinned in turn, or as the queue
    hands them out), the error is the one of the call that comes first."""
    if pinned:
        monkeypatch.setattr(split, "PIN_TO_CHILD", lambda unit: unit.position % 2 == 1)
    entries = tuple(
        BackendEntry(b.name, f"{__name__}:{b.name.upper()}", b.targets) for b in (ERR_CPU, ERR_CUDA)
    )
    monkeypatch.setattr(registry, "BACKENDS", entries)
    plan = split.plan_split(split.emission_units(order), None)
    assert plan is not None and len(plan.queued) == 2 and not plan.child_first
    out = tmp_path / "out"
    for jobs in (1, 2, 2, 2):
        with pytest.raises(InputError) as raised:
            driver.compile_to_directory(MODULE, order, out, jobs=jobs)
        assert [d.message for d in raised.value.diagnostics] == [
            f"err_{order[0]} cannot express {order[0]}"
        ]
    assert list(tmp_path.iterdir()) == []  # neither share's staging is left behind


@pytest.mark.skipif(not can_fork(), reason="needs os.fork")
def test_split_emission_gives_the_files_and_warnings_of_one_process(
    fake_registry: None, split_always: None, tmp_path: Path
) -> None:
    targets = ("cpu", "cuda")
    assert split.plan_split(split.emission_units(targets), None) is not None
    one = driver.compile_to_directory(MODULE, targets, tmp_path / "one", jobs=1)
    two = driver.compile_to_directory(MODULE, targets, tmp_path / "two", jobs=2)
    assert [(f.path, f.target) for f in one.files] == [(f.path, f.target) for f in two.files]
    assert one.report.created == two.report.created
    for path in one.report.created:
        assert (tmp_path / "one" / path).read_bytes() == (tmp_path / "two" / path).read_bytes()
